//! Reading the browser's objects by property. What the shell takes from
//! a browser object (the page's facts at start-up, the gamepads each
//! frame) it reads through [`JsRead`], so the choices made on the way
//! (what is missing, what counts, what is bounded) are tested natively
//! against a stand-in: the glue implements it over `JsValue`, the tests
//! over JSON.

/// A browser value read by property. Reading never fails: whatever is
/// missing or of the wrong kind reads as `undefined` or `None`.
pub trait JsRead: Sized {
    /// `self[key]`: `undefined` when there is none, or `self` is not an
    /// object.
    fn get(&self, key: &str) -> Self;
    /// `self[key](arg)`, with `self` as `this` (no argument for `None`):
    /// `undefined` when it is not a function or it throws.
    fn call(&self, key: &str, arg: Option<&str>) -> Self;
    /// Whether `key` is in `self` (its prototypes included).
    fn has(&self, key: &str) -> bool;
    /// The value if it is a number.
    fn number(&self) -> Option<f64>;
    /// The value if it is a boolean.
    fn boolean(&self) -> Option<bool>;
    /// The value if it is a string.
    fn text(&self) -> Option<String>;
    /// The items if it is an array; none otherwise.
    fn items(&self) -> Vec<Self>;
    /// Whether it is an object (`null` is not).
    fn is_object(&self) -> bool;
}

/// The tests' stand-in for a browser value: JSON, where a method is an
/// object from its argument (`""` for none) to its result.
#[cfg(test)]
#[derive(Debug, Clone, Default)]
pub(crate) struct Stand(pub serde_json::Value);

#[cfg(test)]
impl JsRead for Stand {
    fn get(&self, key: &str) -> Self {
        Stand(self.0.get(key).cloned().unwrap_or_default())
    }
    fn call(&self, key: &str, arg: Option<&str>) -> Self {
        self.get(key).get(arg.unwrap_or(""))
    }
    fn has(&self, key: &str) -> bool {
        self.0.as_object().is_some_and(|o| o.contains_key(key))
    }
    fn number(&self) -> Option<f64> {
        self.0.as_f64()
    }
    fn boolean(&self) -> Option<bool> {
        self.0.as_bool()
    }
    fn text(&self) -> Option<String> {
        self.0.as_str().map(str::to_owned)
    }
    fn items(&self) -> Vec<Self> {
        let items = self.0.as_array().cloned().unwrap_or_default();
        items.into_iter().map(Stand).collect()
    }
    fn is_object(&self) -> bool {
        self.0.is_object() || self.0.is_array()
    }
}

#[cfg(test)]
mod tests {
    use super::{JsRead, Stand};
    use serde_json::json;

    #[test]
    fn the_stand_in_reads_as_the_browser_would() {
        let v = Stand(json!({"a": {"b": 2}, "f": {"": "none", "x": "ex"}, "l": [1, true]}));
        assert_eq!(v.get("a").get("b").number(), Some(2.0));
        assert!(v.get("nope").get("b").0.is_null());
        assert_eq!(v.call("f", None).text().as_deref(), Some("none"));
        assert_eq!(v.call("f", Some("x")).text().as_deref(), Some("ex"));
        assert!(v.call("a", None).0.is_null());
        assert_eq!(v.get("l").items().len(), 2);
        assert!(v.get("a").items().is_empty());
        assert!(v.has("a") && !v.has("b"));
    }
}
