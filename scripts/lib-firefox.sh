# Set-up helper for the Firefox stage (scripts/ci/55-engines.sh); source it
# after scripts/lib.sh, whose log and as_root it uses.

# Debian's Firefox ESR, for the determinism checks and the cross-browser
# match. Installed when missing; stops with one clear line when it cannot be
# (no apt-get, no root, or the package is unavailable), never silently.
FIREFOX_BIN="${FIREFOX_BIN:-/usr/bin/firefox-esr}"
export FIREFOX_BIN
ensure_firefox() {
    if [ -x "$FIREFOX_BIN" ]; then
        return 0
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "error: $FIREFOX_BIN is missing and apt-get is not available; install Firefox ESR (Debian's firefox-esr) or set FIREFOX_BIN, then run this again." >&2
        exit 1
    fi
    log "installing Debian's firefox-esr"
    if ! { as_root apt-get update -qq &&
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends firefox-esr >/dev/null; } ||
        [ ! -x "$FIREFOX_BIN" ]; then
        echo "error: Debian's firefox-esr could not be installed (see apt-get's messages above); install it, or set FIREFOX_BIN to a Firefox ESR binary, then run this again." >&2
        exit 1
    fi
}
