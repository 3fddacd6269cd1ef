//! The security headers both hosts send, written once.
//!
//! Every answer of the service (JSON, errors, preflights) carries
//! [`API_HEADERS`]: it is never a page, so its policy allows nothing at all
//! and no site may frame it. A page the embedded server serves itself
//! (`--static`) gets [`page_policy`] instead, which allows exactly what the
//! game page needs.

/// `X-Content-Type-Options`: browsers must not guess a type other than the
/// one sent (a JSON answer is never run as a script).
pub const NOSNIFF: &str = "nosniff";

/// `Referrer-Policy`: the service's addresses (room codes are in them) are
/// never sent on to another site.
pub const REFERRER_POLICY: &str = "no-referrer";

/// The `Content-Security-Policy` of every answer that is not the page.
pub const API_POLICY: &str = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'";

/// The headers of every API answer, by name.
pub const API_HEADERS: [(&str, &str); 3] = [
    ("Content-Security-Policy", API_POLICY),
    ("X-Content-Type-Options", NOSNIFF),
    ("Referrer-Policy", REFERRER_POLICY),
];

/// The `Content-Security-Policy` of the game page and its files: scripts
/// only from the page's own origin plus the inline scripts named by
/// `inline_script_hashes` (each a base64 SHA-256, as
/// `'sha256-<hash>'` wants it), WebAssembly compiled
/// (`'wasm-unsafe-eval'`, which the page's wasm needs and which allows no
/// `eval` of text), connections to any HTTP(S) or WebSocket service (the
/// page itself allows only its own origin or the configured signalling
/// service, and WebRTC is not governed by the policy), images from itself
/// and `data:` URLs, no plugins, no `<base>` tricks, no form posts, and no
/// framing by any site.
#[must_use]
pub fn page_policy(inline_script_hashes: &[String]) -> String {
    let inline: String = inline_script_hashes
        .iter()
        .map(|h| format!(" 'sha256-{h}'"))
        .collect();
    format!(
        "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'{inline}; \
         connect-src 'self' http: https: ws: wss:; img-src 'self' data:; \
         object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_policy_allows_wasm_and_its_inline_scripts_and_no_framing() {
        let p = page_policy(&["abc=".to_owned()]);
        assert!(p.contains("script-src 'self' 'wasm-unsafe-eval' 'sha256-abc=';"));
        assert!(p.contains("frame-ancestors 'none'"));
        assert!(!p.contains("unsafe-inline") && !p.contains("'unsafe-eval'"));
        assert!(API_POLICY.contains("frame-ancestors 'none'"));
    }
}
