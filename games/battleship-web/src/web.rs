//! The browser glue (wasm32 only): the page's entry point and the test
//! probe.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::slot::{BattleshipSlot, Probe};

thread_local! {
    /// What the page shows, shared with the slot for [`battleship_probe`].
    static PROBE: Rc<RefCell<Probe>> = Rc::new(RefCell::new(Probe::default()));
}

/// 64 random bits from `crypto.getRandomValues` (0 if the browser has
/// none; the shell offers no online play then). The page's global scope
/// and a worker's both have `crypto`, so the slot draws its fleet in
/// either.
fn random() -> u64 {
    let mut b = [0u8; 8];
    let crypto = js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("crypto"))
        .ok()
        .and_then(|c| c.dyn_into::<web_sys::Crypto>().ok());
    match crypto {
        Some(c) => {
            if c.get_random_values_with_u8_array(&mut b).is_err() {
                log::warn!("battleship: no random numbers for the fleet");
            }
        }
        None => log::warn!("battleship: no crypto for the fleet"),
    }
    u64::from_le_bytes(b)
}

/// The page's entry point.
#[cfg(feature = "page")]
#[wasm_bindgen(start)]
pub fn start() -> Result<(), JsValue> {
    web_shell::run_game(Box::new(page_slot()))
}

/// Battleship's slot for a page: fleets from the browser's random
/// numbers, what it shows in the `battleshipProbe` export.
#[must_use]
pub fn page_slot() -> BattleshipSlot {
    let probe = PROBE.with(Rc::clone);
    BattleshipSlot::new(Box::new(random), probe)
}

/// What the page shows and knows now, as JSON (see
/// `battleship_web::slot::Probe`): for tests that compare the two pages.
#[wasm_bindgen(js_name = battleshipProbe)]
#[must_use]
pub fn battleship_probe() -> String {
    PROBE.with(|p| serde_json::to_string(&*p.borrow()).unwrap_or_default())
}
