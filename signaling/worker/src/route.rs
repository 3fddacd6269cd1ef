//! Which route a request is for, decided from its method and path alone.
//!
//! Pure, so it is unit-tested natively; `lib.rs` does the I/O.

use signaling_protocol::RoomCode;

/// A request's destination.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// `GET /health`.
    Health,
    /// `GET /ice`.
    Ice,
    /// `POST /rooms`.
    CreateRoom,
    /// `GET /rooms/<code>/ws`; the room's Durable Object decides the rest.
    RoomSocket(RoomCode),
    /// `GET /lobby/ws`.
    LobbySocket,
    /// `GET /lobbies`: the directory's listing.
    Lobbies,
    /// `OPTIONS` on any known path: a CORS preflight.
    Preflight,
    /// A known path with the wrong method (405); the methods it allows,
    /// for the `Allow` header.
    WrongMethod(&'static str),
    /// `/rooms/<not a code>/ws`: answered like an unknown room (404).
    UnknownRoom,
    /// `GET /relay/<code>/ws`; the relay's Durable Object checks the ticket.
    RelaySocket(RoomCode),
    /// `/relay/<not a code>/ws` (404).
    UnknownRelay,
    /// Anything else (404).
    NotFound,
}

/// Picks the route for `method` and `path` (the URL path, no query).
#[must_use]
pub fn route(method: &str, path: &str) -> Route {
    // (route, its method, what `Allow` lists, whether CORS preflights apply)
    let known = match path {
        "/health" => Some((Route::Health, "GET", "GET, HEAD, OPTIONS", true)),
        "/ice" => Some((Route::Ice, "GET", "GET, OPTIONS", true)),
        "/rooms" => Some((Route::CreateRoom, "POST", "POST, OPTIONS", true)),
        "/lobby/ws" => Some((Route::LobbySocket, "GET", "GET", false)),
        "/lobbies" => Some((Route::Lobbies, "GET", "GET, OPTIONS", true)),
        _ => room_socket_path(path)
            .or_else(|| crate::relay::relay_socket_path(path))
            .map(|r| (r, "GET", "GET", false)),
    };
    let Some((route, wanted, allow, preflight)) = known else {
        return Route::NotFound;
    };
    if method == wanted || (method == "HEAD" && route == Route::Health) {
        route
    } else if method == "OPTIONS" && preflight {
        Route::Preflight
    } else {
        Route::WrongMethod(allow)
    }
}

/// `/rooms/<segment>/ws` → the room route, or [`Route::UnknownRoom`] when
/// the segment is not a room code.
fn room_socket_path(path: &str) -> Option<Route> {
    let code = path.strip_prefix("/rooms/")?.strip_suffix("/ws")?;
    if code.contains('/') {
        return None;
    }
    Some(match RoomCode::parse(code) {
        Some(code) => Route::RoomSocket(code),
        None => Route::UnknownRoom,
    })
}

/// The value of `name` in a URL query string, as the embedded server
/// reads it too (one reading for every host and the page).
pub use signaling_protocol::query_param;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_routes() {
        assert_eq!(route("GET", "/health"), Route::Health);
        assert_eq!(route("HEAD", "/health"), Route::Health);
        assert_eq!(route("GET", "/ice"), Route::Ice);
        assert_eq!(route("POST", "/rooms"), Route::CreateRoom);
        assert_eq!(route("GET", "/lobby/ws"), Route::LobbySocket);
        assert_eq!(route("GET", "/lobbies"), Route::Lobbies);
        assert_eq!(route("OPTIONS", "/lobbies"), Route::Preflight);
        assert_eq!(
            route("POST", "/lobbies"),
            Route::WrongMethod("GET, OPTIONS")
        );
        // Test only: a literal valid code.
        let code = RoomCode::parse("K7M2QX").unwrap();
        assert_eq!(
            route("GET", "/rooms/K7M2QX/ws"),
            Route::RoomSocket(code.clone())
        );
        // Lower case is read as upper case, as the core's parser does.
        assert_eq!(route("GET", "/rooms/k7m2qx/ws"), Route::RoomSocket(code));
    }

    #[test]
    fn wrong_methods_and_preflights() {
        assert_eq!(route("GET", "/rooms"), Route::WrongMethod("POST, OPTIONS"));
        assert_eq!(route("POST", "/ice"), Route::WrongMethod("GET, OPTIONS"));
        assert_eq!(
            route("DELETE", "/rooms/K7M2QX/ws"),
            Route::WrongMethod("GET")
        );
        assert_eq!(route("HEAD", "/ice"), Route::WrongMethod("GET, OPTIONS"));
        assert_eq!(route("OPTIONS", "/rooms"), Route::Preflight);
        assert_eq!(route("OPTIONS", "/ice"), Route::Preflight);
        assert_eq!(route("OPTIONS", "/health"), Route::Preflight);
        // WebSocket routes are not fetched cross-origin: no preflight.
        assert_eq!(route("OPTIONS", "/lobby/ws"), Route::WrongMethod("GET"));
        assert_eq!(route("OPTIONS", "/nowhere"), Route::NotFound);
    }

    #[test]
    fn bad_codes_are_unknown_rooms() {
        for path in [
            "/rooms/K7M2Q/ws",
            "/rooms/K7M2QXX/ws",
            "/rooms/K0M2QX/ws",
            "/rooms//ws",
            "/rooms/%4B7M2QX/ws",
        ] {
            assert_eq!(route("GET", path), Route::UnknownRoom, "{path}");
        }
    }

    #[test]
    fn everything_else_is_not_found() {
        for path in [
            "/",
            "/rooms/",
            "/rooms/K7M2QX",
            "/rooms/K7M2QX/ws/",
            "/rooms/A/B/ws",
            "/lobby",
            "/health/",
        ] {
            assert_eq!(route("GET", path), Route::NotFound, "{path}");
        }
    }

    #[test]
    fn query_params() {
        assert_eq!(query_param("role=host", "role"), Some("host"));
        assert_eq!(
            query_param("?x=1&role=guest&role=host", "role"),
            Some("guest")
        );
        assert_eq!(query_param("role", "role"), Some(""));
        assert_eq!(query_param("roles=host", "role"), None);
        assert_eq!(query_param("", "role"), None);
    }
}
