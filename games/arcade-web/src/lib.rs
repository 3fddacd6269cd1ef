//! `arcade-web`: one page that carries several games behind a hub
//! ([`hub::HubSlot`]): NtBA, the arena, Battleship and dots: every game in
//! `games/` with a front end. After a game, or in the
//! middle of one, the two players pick the next game and play it over the
//! same match link, without going back to the lobby.
#![warn(missing_docs)]

pub mod hub;

/// The page's entry point: the hub over NtBA, the arena, Battleship and dots. In the
/// arena host's worker (no window) it does nothing: `worker.js` calls the
/// arena's `workerMain`, which this module carries.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn start() -> Result<(), wasm_bindgen::JsValue> {
    if web_sys::window().is_none() {
        return Ok(());
    }
    let games: Vec<Box<dyn web_shell::shell::GameSlot>> = vec![
        ntba_web::page_slot(),
        Box::new(arena_web::page_slot()),
        Box::new(battleship_web::page_slot()),
        dots_web::page_slot(),
    ];
    web_shell::run_game(Box::new(hub::HubSlot::new(games)))
}
