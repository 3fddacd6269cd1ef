//! Query strings, read one way by every host and by the page.

/// The value of `name` in a URL query string (`a=1&role=host`, with or
/// without the leading `?`), as written (not percent-decoded). The first
/// occurrence wins, and a bare `name` (no `=`) reads as empty, as
/// `URLSearchParams` reads it.
#[must_use]
pub fn query_param<'a>(query: &'a str, name: &str) -> Option<&'a str> {
    query
        .strip_prefix('?')
        .unwrap_or(query)
        .split('&')
        .map(|pair| pair.split_once('=').unwrap_or((pair, "")))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_found_by_key_first_one_wins() {
        assert_eq!(query_param("role=host", "role"), Some("host"));
        assert_eq!(
            query_param("?x=1&role=guest&role=host", "role"),
            Some("guest")
        );
        assert_eq!(
            query_param("?signal=http%3A%2F%2Fx", "signal"),
            Some("http%3A%2F%2Fx")
        );
        assert_eq!(query_param("roles=host", "role"), None);
        assert_eq!(query_param("", "role"), None);
        assert_eq!(query_param("?", "role"), None);
    }

    #[test]
    fn a_bare_key_reads_as_empty() {
        assert_eq!(query_param("role", "role"), Some(""));
        assert_eq!(query_param("?a=1&empty=", "empty"), Some(""));
        assert_eq!(query_param("?a=1&empty", "empty"), Some(""));
    }
}
