//! `arcade-web`: one page that carries several games behind a hub
//! ([`hub::HubSlot`]): NtBA, the arena, Battleship and dots: every game in
//! `games/` with a front end. After a game, or in the
//! middle of one, the two players pick the next game and play it over the
//! same match link, without going back to the lobby.
#![warn(missing_docs)]

pub mod hub;

/// The page's entry point: the hub over NtBA, the arena, Battleship and
/// dots. The same module runs in the page's match worker (no window),
/// where the hub it keeps runs the page's online matches, the arena's host
/// among them; and in the arena host's own worker (a page run with the
/// match worker turned off), whose script calls the arena's `workerMain`.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn start() -> Result<(), wasm_bindgen::JsValue> {
    let in_page = web_sys::window().is_some();
    let arena: Box<dyn web_shell::shell::GameSlot> = if in_page {
        Box::new(arena_web::page_slot())
    } else {
        Box::new(arena_web::match_worker_slot())
    };
    let games: Vec<Box<dyn web_shell::shell::GameSlot>> = vec![
        ntba_web::page_slot(),
        arena,
        Box::new(battleship_web::page_slot()),
        dots_web::page_slot(),
    ];
    web_shell::run_game(Box::new(hub::HubSlot::new(games)))
}
