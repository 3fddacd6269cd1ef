//! The `Origin` allow-list.

/// Which page origins may use the service.
///
/// A request **without** an `Origin` header is allowed: browsers send one on
/// every WebSocket upgrade and cross-origin request, so its absence means a
/// same-origin GET or a non-browser client (which could send any header it
/// liked anyway). A request from the service's own origin is allowed too
/// (a page the service serves itself, see [`AllowedOrigins::allows_at`]).
/// Any other `Origin` must be on the list, unless the list is `*`. The
/// default list, the same on both hosts, is
/// [`crate::defaults::ALLOWED_ORIGINS`]: empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AllowedOrigins {
    /// Any origin (`*`).
    Any,
    /// Exactly these origins (scheme, host and port, no trailing slash).
    List(Vec<String>),
}

impl AllowedOrigins {
    /// Reads a comma-separated list such as
    /// `https://ntba.example,http://127.0.0.1:8080`; `*` anywhere in it
    /// allows any origin. Blank items are skipped and a trailing `/` is
    /// dropped; an empty list allows only requests without `Origin`.
    #[must_use]
    pub fn parse(list: &str) -> AllowedOrigins {
        let mut origins = Vec::new();
        for item in list.split(',') {
            let item = item.trim().trim_end_matches('/');
            if item == "*" {
                return AllowedOrigins::Any;
            }
            if !item.is_empty() {
                origins.push(item.to_ascii_lowercase());
            }
        }
        AllowedOrigins::List(origins)
    }

    /// Whether a request with this `Origin` header (if any), made to the
    /// service at `own` (its own origin, `scheme://host[:port]` as the
    /// request addressed it), is allowed: its own origin always is.
    #[must_use]
    pub fn allows_at(&self, origin: Option<&str>, own: Option<&str>) -> bool {
        let same = |a: &str, b: &str| {
            a.trim()
                .trim_end_matches('/')
                .eq_ignore_ascii_case(b.trim().trim_end_matches('/'))
        };
        match (origin, own) {
            (Some(o), Some(own)) if same(o, own) => true,
            _ => self.allows(origin),
        }
    }

    /// Whether a request with this `Origin` header (if any) is allowed by
    /// the list alone.
    #[must_use]
    pub fn allows(&self, origin: Option<&str>) -> bool {
        match (self, origin) {
            (_, None) | (AllowedOrigins::Any, _) => true,
            (AllowedOrigins::List(list), Some(o)) => {
                let o = o.trim().trim_end_matches('/');
                list.iter().any(|allowed| allowed.eq_ignore_ascii_case(o))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_own_origin_is_always_allowed_and_nothing_else_by_default() {
        let default = AllowedOrigins::parse(crate::defaults::ALLOWED_ORIGINS);
        let own = Some("http://127.0.0.1:8787");
        assert!(default.allows_at(None, own));
        assert!(default.allows_at(Some("http://127.0.0.1:8787"), own));
        assert!(default.allows_at(Some("HTTP://127.0.0.1:8787/"), own));
        assert!(!default.allows_at(Some("http://127.0.0.1:8788"), own));
        assert!(!default.allows_at(Some("https://evil.example"), own));
        assert!(!default.allows_at(Some("http://127.0.0.1:8787"), None));
        let listed = AllowedOrigins::parse("https://game.example");
        assert!(listed.allows_at(Some("https://game.example"), own));
        assert!(AllowedOrigins::Any.allows_at(Some("https://x.example"), own));
    }
}
