//! A service that never answers `GET /ice`: the page gives the request up
//! after its deadline (kept by the shell, not the browser), joins the lobby
//! with the default STUN server, and links to the others as usual.

use crate::common;

use common::World;
use web_shell::options::FALLBACK_STUN_URL;
use web_shell::shell::{FetchId, ICE_FETCH_TIMEOUT};

#[test]
fn an_unanswered_ice_request_falls_back_in_time() {
    let mut w = World::new(2, "");
    w.join(1, "Bo");
    w.pages[0].answers_fetches = false;
    w.join(0, "Ada");
    let joined = w.now;

    // The presence socket waits for the ICE servers...
    w.run(ICE_FETCH_TIMEOUT.0 - 200);
    assert!(!w.online(0), "online before the request was given up");
    // ...which the page stops waiting for at the deadline, within a tick.
    w.until(400, "Ada is online", |w| w.online(0));
    assert!(w.now.0 - joined.0 >= ICE_FETCH_TIMEOUT.0);
    // The request given up is aborted, not left to hang.
    assert_eq!(w.pages[0].aborted, [FetchId::Ice]);

    w.until(5_000, "the mesh forms", World::mesh_formed);
    let servers: serde_json::Value = serde_json::from_str(
        w.pages[0]
            .ice_servers
            .as_deref()
            .expect("a peer connection"),
    )
    .expect("JSON");
    assert_eq!(servers, serde_json::json!([{ "urls": FALLBACK_STUN_URL }]));
}
