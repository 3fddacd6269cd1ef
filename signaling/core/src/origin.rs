//! The `Origin` allow-list.

/// Which page origins may use the service.
///
/// A request **without** an `Origin` header is allowed: browsers send one on
/// every WebSocket upgrade and cross-origin request, so its absence means a
/// same-origin GET or a non-browser client (which could send any header it
/// liked anyway). A present `Origin` must be on the list, unless the list is
/// `*`.
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

    /// Whether a request with this `Origin` header (if any) is allowed.
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
