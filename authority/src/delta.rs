//! The generic delta codec: a snapshot as a tree of values, and the
//! difference between two trees as a flat list of operations.
//!
//! Any `serde` snapshot becomes a [`Value`] tree (`serde_json`'s, used here
//! only as an in-memory tree: nothing is ever written as JSON text). Two
//! trees are compared node by node:
//!
//! - a map (a struct) whose keys did not change sends a bit mask of the
//!   fields that changed, then a patch for each of them in key order;
//!   unchanged fields cost nothing;
//! - a sequence whose elements are all maps with an `"id"` field (unique in
//!   the baseline) is an entity list: new elements are matched to old ones
//!   by id, so an entity that moved costs a patch of its changed fields, one
//!   that did not change costs nothing (runs of them cost one operation),
//!   a new one is sent whole and a removed one is simply not copied;
//! - any other sequence is matched by position the same way;
//! - an integer that changed sends the difference (small moves are one or
//!   two bytes), anything else is replaced whole.
//!
//! The operations are a flat list ([`Op`]), never a nested type, so decoding
//! a hostile datagram cannot recurse; applying them recurses along the
//! baseline tree, at most [`MAX_DEPTH`] deep, and the tree they build is
//! capped at [`MAX_NODES`] nodes, so a short datagram cannot make a huge
//! tree either.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// Deepest nesting of a snapshot tree, in either direction.
pub const MAX_DEPTH: usize = 32;
/// Most nodes (values of any kind) in a snapshot tree.
pub const MAX_NODES: usize = 65_536;
/// Longest string (a map key or a string value), in bytes.
pub const MAX_STR: usize = 1024;
/// Most fields of a map patched through a bit mask; a map with more keys,
/// or whose keys changed, is replaced whole when it changes.
pub const MASK_FIELDS: usize = 64;

/// One operation of a tree or of a patch. A tree is written in preorder
/// (a sequence or map announces its length, then its children follow); a
/// patch says how one baseline node becomes the new one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Op {
    /// Tree: `null` (also an `Option`'s `None`).
    Null,
    /// Tree: `false`.
    False,
    /// Tree: `true`.
    True,
    /// Tree: a non-negative integer.
    U(u64),
    /// Tree: a negative integer.
    I(i64),
    /// Tree: a float that an `f32` holds exactly.
    F32(f32),
    /// Tree: any other float.
    F64(f64),
    /// Tree: a string.
    Str(String),
    /// Tree: a sequence of this many trees.
    Seq(u32),
    /// Tree: a map of this many [`Op::Key`]-then-tree pairs, keys in
    /// increasing order.
    Map(u32),
    /// Tree: a map key.
    Key(String),
    /// Patch: the node is replaced by the tree that follows.
    Set,
    /// Patch: the integer node changes by this much.
    Add(i64),
    /// Patch of a map with the same keys: bit `i` set means the `i`-th key
    /// (in key order) changed, and one patch per set bit follows, in order.
    Fields(u64),
    /// Patch of a sequence: this many item operations follow
    /// ([`Op::Copy`], [`Op::Seek`], [`Op::Edit`], [`Op::EditFields`],
    /// [`Op::Insert`], [`Op::Shaped`]), reading the baseline through a
    /// cursor that starts at its first element.
    Items(u32),
    /// Item: the next `n` baseline elements, unchanged.
    Copy(u32),
    /// Item: move the cursor to this baseline index (an entity reordered,
    /// or entities before it removed).
    Seek(u32),
    /// Item: the baseline element at the cursor, with the patch that
    /// follows (the cursor moves on).
    Edit,
    /// Item: a new element, the tree that follows.
    Insert,
    /// Item: the baseline element at the cursor, patched as by
    /// [`Op::Fields`] with this mask (the cursor moves on). The same as
    /// [`Op::Edit`] then [`Op::Fields`], one operation shorter: the common
    /// case of an entity that moved.
    EditFields(u64),
    /// Patch of a map with the same keys whose changed fields are all
    /// integers: bit `i` of the mask set means the `i`-th key changed by
    /// the next step of the list (no operation per field: the usual case
    /// of an entity that moved).
    Steps(u64, Vec<i64>),
    /// Item: the baseline element at the cursor, patched as by
    /// [`Op::Steps`] (the cursor moves on).
    EditSteps(u64, Vec<i64>),
    /// Item: a new element that is a map with the same keys as the
    /// *template*: the element added to the new sequence just before it,
    /// or, for the first, the baseline's first element. Only its values
    /// follow (one tree per key, in key order), not the key names.
    Shaped,
}

/// Why a patch could not be applied (the bytes decoded, but they do not fit
/// the baseline, or break a limit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchError {
    /// The operations ended in the middle of a tree or patch.
    Truncated,
    /// Operations are left after the patch.
    Trailing,
    /// An operation that cannot stand where it stands.
    Unexpected,
    /// A field mask, index or run outside the baseline, or an integer step
    /// out of range.
    OutOfRange,
    /// Nested deeper than [`MAX_DEPTH`].
    TooDeep,
    /// More than [`MAX_NODES`] nodes, or a string over [`MAX_STR`].
    TooLarge,
    /// Map keys out of order or repeated, or a float that is not finite.
    BadValue,
}

impl core::fmt::Display for PatchError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let what = match self {
            PatchError::Truncated => "patch ends early",
            PatchError::Trailing => "operations after the patch",
            PatchError::Unexpected => "operation out of place",
            PatchError::OutOfRange => "index or step outside the baseline",
            PatchError::TooDeep => "tree nested too deep",
            PatchError::TooLarge => "tree too large",
            PatchError::BadValue => "bad key order or float",
        };
        f.write_str(what)
    }
}

impl std::error::Error for PatchError {}

// ---------------------------------------------------------------- writing

/// Appends `value` as a tree in preorder.
pub fn write_tree(value: &Value, out: &mut Vec<Op>) {
    match value {
        Value::Null => out.push(Op::Null),
        Value::Bool(false) => out.push(Op::False),
        Value::Bool(true) => out.push(Op::True),
        Value::Number(n) => out.push(number_op(n)),
        Value::String(s) => out.push(Op::Str(s.clone())),
        Value::Array(items) => {
            out.push(Op::Seq(len_u32(items.len())));
            for item in items {
                write_tree(item, out);
            }
        }
        Value::Object(map) => {
            out.push(Op::Map(len_u32(map.len())));
            for (k, v) in map {
                out.push(Op::Key(k.clone()));
                write_tree(v, out);
            }
        }
    }
}

fn len_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn number_op(n: &Number) -> Op {
    if let Some(u) = n.as_u64() {
        Op::U(u)
    } else if let Some(i) = n.as_i64() {
        Op::I(i)
    } else {
        // serde_json numbers are integers or finite floats.
        let f = n.as_f64().unwrap_or(0.0);
        #[allow(clippy::cast_possible_truncation)]
        let narrow = f as f32;
        if f64::from(narrow) == f {
            Op::F32(narrow)
        } else {
            Op::F64(f)
        }
    }
}

/// Appends the patch that turns `base` into `new`, or nothing and `false`
/// when they are equal.
pub fn write_patch(base: &Value, new: &Value, out: &mut Vec<Op>) -> bool {
    if base == new {
        return false;
    }
    match (base, new) {
        (Value::Number(a), Value::Number(b)) => {
            if let Some(step) = int_step(a, b) {
                out.push(Op::Add(step));
            } else {
                out.push(Op::Set);
                out.push(number_op(b));
            }
        }
        (Value::Object(a), Value::Object(b))
            if a.len() == b.len() && a.len() <= MASK_FIELDS && a.keys().eq(b.keys()) =>
        {
            if let Some((mask, steps)) = int_steps(a, b) {
                out.push(Op::Steps(mask, steps));
                return true;
            }
            let at = out.len();
            out.push(Op::Fields(0));
            let mut mask = 0u64;
            for (i, (va, vb)) in a.values().zip(b.values()).enumerate() {
                if write_patch(va, vb, out) {
                    mask |= 1 << i;
                }
            }
            out[at] = Op::Fields(mask);
        }
        (Value::Array(a), Value::Array(b)) => write_items(a, b, out),
        _ => {
            out.push(Op::Set);
            write_tree(new, out);
        }
    }
    true
}

/// When every field that differs between two maps with the same keys is
/// an integer (changed by a step that fits an `i64`): the mask of those
/// fields and their steps.
fn int_steps(a: &Map<String, Value>, b: &Map<String, Value>) -> Option<(u64, Vec<i64>)> {
    let mut mask = 0u64;
    let mut steps = Vec::new();
    for (i, (va, vb)) in a.values().zip(b.values()).enumerate() {
        if va == vb {
            continue;
        }
        let (Value::Number(x), Value::Number(y)) = (va, vb) else {
            return None;
        };
        steps.push(int_step(x, y)?);
        mask |= 1 << i;
    }
    Some((mask, steps))
}

/// `b - a` for two integers, when it fits an `i64`.
fn int_step(a: &Number, b: &Number) -> Option<i64> {
    let a = int_of(a)?;
    let b = int_of(b)?;
    i64::try_from(b - a).ok()
}

fn int_of(n: &Number) -> Option<i128> {
    n.as_u64()
        .map(i128::from)
        .or_else(|| n.as_i64().map(i128::from))
}

/// The id of an entity: a map's `"id"` field.
fn id_of(v: &Value) -> Option<&Value> {
    v.as_object().and_then(|m| m.get("id"))
}

/// For each new element, the baseline index it is matched to.
fn match_items(a: &[Value], b: &[Value]) -> Vec<Option<usize>> {
    let entities = !a.is_empty() && a.iter().chain(b).all(|v| id_of(v).is_some()) && {
        let mut ids: Vec<String> = a.iter().filter_map(id_of).map(Value::to_string).collect();
        ids.sort_unstable();
        ids.windows(2).all(|w| w[0] != w[1])
    };
    if entities {
        let mut index: std::collections::BTreeMap<String, usize> =
            std::collections::BTreeMap::new();
        for (i, v) in a.iter().enumerate() {
            if let Some(id) = id_of(v) {
                index.insert(id.to_string(), i);
            }
        }
        let mut used = vec![false; a.len()];
        b.iter()
            .map(|v| {
                let j = id_of(v).and_then(|id| index.get(&id.to_string()).copied())?;
                // A repeated id in the new list matches once; the repeat is
                // sent whole.
                if std::mem::replace(&mut used[j], true) {
                    None
                } else {
                    Some(j)
                }
            })
            .collect()
    } else {
        (0..b.len()).map(|i| (i < a.len()).then_some(i)).collect()
    }
}

fn write_items(a: &[Value], b: &[Value], out: &mut Vec<Op>) {
    let at = out.len();
    out.push(Op::Items(0));
    let mut count = 0u32;
    let mut cursor = 0usize;
    let mut run = 0u32;
    let mut previous: Option<&Value> = None;
    let flush = |run: &mut u32, out: &mut Vec<Op>, count: &mut u32| {
        if *run > 0 {
            out.push(Op::Copy(*run));
            *count += 1;
            *run = 0;
        }
    };
    for (item, matched) in b.iter().zip(match_items(a, b)) {
        match matched {
            Some(j) => {
                if j != cursor {
                    flush(&mut run, out, &mut count);
                    out.push(Op::Seek(len_u32(j)));
                    count += 1;
                    cursor = j;
                }
                if a[j] == *item {
                    run += 1;
                } else {
                    flush(&mut run, out, &mut count);
                    let mut patch = Vec::new();
                    write_patch(&a[j], item, &mut patch);
                    if let Some(&Op::Fields(mask)) = patch.first() {
                        out.push(Op::EditFields(mask));
                        out.extend(patch.into_iter().skip(1));
                    } else if let Some(Op::Steps(mask, steps)) = patch.first() {
                        out.push(Op::EditSteps(*mask, steps.clone()));
                    } else {
                        out.push(Op::Edit);
                        out.extend(patch);
                    }
                    count += 1;
                }
                cursor += 1;
            }
            None => {
                flush(&mut run, out, &mut count);
                count += 1;
                let template = previous.or_else(|| a.first());
                match (template.and_then(Value::as_object), item.as_object()) {
                    (Some(t), Some(m)) if t.len() == m.len() && t.keys().eq(m.keys()) => {
                        out.push(Op::Shaped);
                        for v in m.values() {
                            write_tree(v, out);
                        }
                    }
                    _ => {
                        out.push(Op::Insert);
                        write_tree(item, out);
                    }
                }
            }
        }
        previous = Some(item);
    }
    flush(&mut run, out, &mut count);
    out[at] = Op::Items(count);
}

// ---------------------------------------------------------------- reading

/// Reads operations front to back, with the node budget.
struct Reader<'a> {
    ops: &'a [Op],
    pos: usize,
    budget: usize,
}

impl Reader<'_> {
    fn next(&mut self) -> Result<&Op, PatchError> {
        let op = self.ops.get(self.pos).ok_or(PatchError::Truncated)?;
        self.pos += 1;
        Ok(op)
    }

    fn spend(&mut self, nodes: usize) -> Result<(), PatchError> {
        self.budget = self.budget.checked_sub(nodes).ok_or(PatchError::TooLarge)?;
        Ok(())
    }

    fn tree(&mut self, depth: usize) -> Result<Value, PatchError> {
        if depth > MAX_DEPTH {
            return Err(PatchError::TooDeep);
        }
        self.spend(1)?;
        Ok(match self.next()?.clone() {
            Op::Null => Value::Null,
            Op::False => Value::Bool(false),
            Op::True => Value::Bool(true),
            Op::U(u) => Value::Number(u.into()),
            Op::I(i) if i < 0 => Value::Number(i.into()),
            Op::F32(f) => float(f64::from(f))?,
            Op::F64(f) if f64::from(narrow(f)) != f => float(f)?,
            Op::Str(s) => Value::String(checked_str(s)?),
            Op::Seq(n) => {
                let n = n as usize;
                let mut items = Vec::with_capacity(n.min(self.ops.len() - self.pos));
                for _ in 0..n {
                    items.push(self.tree(depth + 1)?);
                }
                Value::Array(items)
            }
            Op::Map(n) => {
                let mut map = Map::new();
                let mut last: Option<String> = None;
                for _ in 0..n {
                    let Op::Key(k) = self.next()?.clone() else {
                        return Err(PatchError::Unexpected);
                    };
                    let k = checked_str(k)?;
                    if last.as_ref().is_some_and(|l| *l >= k) {
                        return Err(PatchError::BadValue);
                    }
                    let v = self.tree(depth + 1)?;
                    last = Some(k.clone());
                    map.insert(k, v);
                }
                Value::Object(map)
            }
            // I(non-negative) and F64(an exact f32) have canonical forms.
            Op::I(_) | Op::F64(_) => return Err(PatchError::BadValue),
            _ => return Err(PatchError::Unexpected),
        })
    }

    /// Reads one patch against `base`, giving the new node.
    fn patch(&mut self, base: &Value, depth: usize) -> Result<Value, PatchError> {
        let op = self.next()?.clone();
        self.patch_with(op, base, depth)
    }

    /// `base`, an object, with the fields `mask` marks rebuilt by `change`
    /// and the others kept as they are (each paid for from the budget).
    fn rebuild_fields(
        &mut self,
        base: &Value,
        mask: u64,
        mut change: impl FnMut(&mut Self, &Value) -> Result<Value, PatchError>,
    ) -> Result<Value, PatchError> {
        self.spend(1)?;
        let Value::Object(map) = base else {
            return Err(PatchError::Unexpected);
        };
        if mask == 0 || map.len() > MASK_FIELDS || (map.len() < 64 && mask >> map.len() != 0) {
            return Err(PatchError::OutOfRange);
        }
        let mut out = Map::new();
        for (i, (k, v)) in map.iter().enumerate() {
            let nv = if mask & (1 << i) != 0 {
                change(self, v)?
            } else {
                self.spend(size_of_tree(v, self.budget)?)?;
                v.clone()
            };
            out.insert(k.clone(), nv);
        }
        Ok(Value::Object(out))
    }

    /// A patch against `base` whose first operation, `op`, was read.
    fn patch_with(&mut self, op: Op, base: &Value, depth: usize) -> Result<Value, PatchError> {
        if depth > MAX_DEPTH {
            return Err(PatchError::TooDeep);
        }
        match op {
            Op::Set => {
                let v = self.tree(depth)?;
                // A Set that changes nothing is not canonical.
                if v == *base {
                    return Err(PatchError::Unexpected);
                }
                Ok(v)
            }
            Op::Add(step) => {
                self.spend(1)?;
                add_step(base, step)
            }
            Op::Fields(mask) => self.rebuild_fields(base, mask, |p, v| p.patch(v, depth + 1)),
            Op::Steps(mask, steps) => {
                let mut steps = steps.iter();
                let out = self.rebuild_fields(base, mask, |_, v| {
                    add_step(v, *steps.next().ok_or(PatchError::OutOfRange)?)
                })?;
                // One step per marked field, no more.
                if steps.next().is_some() {
                    return Err(PatchError::OutOfRange);
                }
                Ok(out)
            }
            Op::Items(n) => {
                self.spend(1)?;
                let Value::Array(items) = base else {
                    return Err(PatchError::Unexpected);
                };
                let mut out = Vec::new();
                let mut cursor = 0usize;
                for _ in 0..n {
                    match self.next()?.clone() {
                        Op::Copy(k) => {
                            let end = cursor
                                .checked_add(k as usize)
                                .filter(|&e| k > 0 && e <= items.len())
                                .ok_or(PatchError::OutOfRange)?;
                            for v in &items[cursor..end] {
                                self.spend(size_of_tree(v, self.budget)?)?;
                                out.push(v.clone());
                            }
                            cursor = end;
                        }
                        Op::Seek(j) => {
                            let j = j as usize;
                            if j >= items.len() || j == cursor {
                                return Err(PatchError::OutOfRange);
                            }
                            cursor = j;
                        }
                        Op::Edit => {
                            let v = items.get(cursor).ok_or(PatchError::OutOfRange)?;
                            out.push(self.patch(v, depth + 1)?);
                            cursor += 1;
                        }
                        Op::EditFields(mask) => {
                            let v = items.get(cursor).ok_or(PatchError::OutOfRange)?;
                            out.push(self.patch_with(Op::Fields(mask), v, depth + 1)?);
                            cursor += 1;
                        }
                        Op::EditSteps(mask, steps) => {
                            let v = items.get(cursor).ok_or(PatchError::OutOfRange)?;
                            out.push(self.patch_with(Op::Steps(mask, steps), v, depth + 1)?);
                            cursor += 1;
                        }
                        Op::Insert => out.push(self.tree(depth + 1)?),
                        Op::Shaped => {
                            let template = out.last().or_else(|| items.first());
                            let Some(Value::Object(t)) = template else {
                                return Err(PatchError::Unexpected);
                            };
                            let keys: Vec<String> = t.keys().cloned().collect();
                            self.spend(1 + keys.len())?;
                            let mut map = Map::new();
                            for k in keys {
                                let v = self.tree(depth + 2)?;
                                map.insert(k, v);
                            }
                            out.push(Value::Object(map));
                        }
                        _ => return Err(PatchError::Unexpected),
                    }
                }
                Ok(Value::Array(out))
            }
            _ => Err(PatchError::Unexpected),
        }
    }
}

/// An integer node changed by a non-zero `step`.
fn add_step(base: &Value, step: i64) -> Result<Value, PatchError> {
    let Value::Number(n) = base else {
        return Err(PatchError::Unexpected);
    };
    let old = int_of(n).ok_or(PatchError::Unexpected)?;
    if step == 0 {
        return Err(PatchError::Unexpected);
    }
    let new = old + i128::from(step);
    if let Ok(u) = u64::try_from(new) {
        Ok(Value::Number(u.into()))
    } else if let Ok(i) = i64::try_from(new) {
        Ok(Value::Number(i.into()))
    } else {
        Err(PatchError::OutOfRange)
    }
}

#[allow(clippy::cast_possible_truncation)]
fn narrow(f: f64) -> f32 {
    f as f32
}

fn float(f: f64) -> Result<Value, PatchError> {
    Number::from_f64(f)
        .map(Value::Number)
        .ok_or(PatchError::BadValue)
}

fn checked_str(s: String) -> Result<String, PatchError> {
    if s.len() > MAX_STR {
        Err(PatchError::TooLarge)
    } else {
        Ok(s)
    }
}

/// Nodes in `v`, or `TooLarge` as soon as they pass `limit`.
fn size_of_tree(v: &Value, limit: usize) -> Result<usize, PatchError> {
    let mut count = 0usize;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        count += 1;
        if count > limit {
            return Err(PatchError::TooLarge);
        }
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    Ok(count)
}

/// Reads a whole tree from `ops` (all of them).
pub fn read_tree(ops: &[Op]) -> Result<Value, PatchError> {
    let mut r = Reader {
        ops,
        pos: 0,
        budget: MAX_NODES,
    };
    let v = r.tree(0)?;
    if r.pos != ops.len() {
        return Err(PatchError::Trailing);
    }
    Ok(v)
}

/// Applies `ops` (a patch, or nothing for "unchanged") to `base`.
pub fn apply_patch(base: &Value, ops: &[Op]) -> Result<Value, PatchError> {
    if ops.is_empty() {
        return Ok(base.clone());
    }
    let mut r = Reader {
        ops,
        pos: 0,
        budget: MAX_NODES,
    };
    let v = r.patch(base, 0)?;
    if r.pos != ops.len() {
        return Err(PatchError::Trailing);
    }
    Ok(v)
}

/// Checks that a tree made by `serde_json::to_value` stays within the
/// limits the receiving side enforces (depth, node count, string length).
pub fn check_limits(v: &Value) -> Result<(), PatchError> {
    let mut count = 0usize;
    let mut stack = vec![(v, 0usize)];
    while let Some((v, depth)) = stack.pop() {
        count += 1;
        if count > MAX_NODES {
            return Err(PatchError::TooLarge);
        }
        if depth > MAX_DEPTH {
            return Err(PatchError::TooDeep);
        }
        match v {
            Value::String(s) if s.len() > MAX_STR => return Err(PatchError::TooLarge),
            Value::Array(items) => stack.extend(items.iter().map(|i| (i, depth + 1))),
            Value::Object(map) => {
                for (k, i) in map {
                    if k.len() > MAX_STR {
                        return Err(PatchError::TooLarge);
                    }
                    stack.push((i, depth + 1));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The patch from `base` to `new` (empty when they are equal).
#[must_use]
pub fn diff(base: &Value, new: &Value) -> Vec<Op> {
    let mut out = Vec::new();
    write_patch(base, new, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip(a: Value, b: Value) -> Vec<Op> {
        let ops = diff(&a, &b);
        assert_eq!(apply_patch(&a, &ops), Ok(b.clone()), "{ops:?}");
        let mut t = Vec::new();
        write_tree(&b, &mut t);
        assert_eq!(read_tree(&t), Ok(b));
        ops
    }

    #[test]
    fn unchanged_costs_nothing_and_fields_cost_only_themselves() {
        let a = json!({"a": 1, "b": "x", "c": [1, 2, 3], "d": 1.5});
        assert!(round_trip(a.clone(), a.clone()).is_empty());
        let ops = round_trip(a, json!({"a": 3, "b": "x", "c": [1, 2, 3], "d": 1.5}));
        assert_eq!(ops, vec![Op::Steps(1, vec![2])]);
        let ops = round_trip(json!({"a": 1, "b": "x"}), json!({"a": 3, "b": "y"}));
        assert_eq!(
            ops,
            vec![Op::Fields(3), Op::Add(2), Op::Set, Op::Str("y".into())]
        );
    }

    #[test]
    fn entities_are_matched_by_id() {
        let a = json!([{"id": 1, "x": 0}, {"id": 2, "x": 0}, {"id": 3, "x": 0}, {"id": 4, "x": 0}]);
        // 1 removed, 3 moved, 5 added, 2 and 4 unchanged.
        let b = json!([{"id": 2, "x": 0}, {"id": 3, "x": 7}, {"id": 4, "x": 0}, {"id": 5, "x": 1}]);
        let ops = round_trip(a, b);
        assert_eq!(
            ops,
            [
                Op::Items(5),
                Op::Seek(1),
                Op::Copy(1),
                Op::EditSteps(2, vec![7]),
                Op::Copy(1),
                Op::Shaped,
                Op::U(5),
                Op::U(1)
            ]
        );
    }

    #[test]
    fn reordered_and_repeated_ids_still_round_trip() {
        let a = json!([{"id": 1, "x": 0}, {"id": 2, "x": 0}]);
        round_trip(a.clone(), json!([{"id": 2, "x": 0}, {"id": 1, "x": 0}]));
        round_trip(a.clone(), json!([{"id": 2, "x": 0}, {"id": 2, "x": 0}]));
        round_trip(a, json!([1, "two", null]));
        round_trip(json!([1, 2, 3]), json!([1, 5]));
        round_trip(json!({"a": 1}), json!({"b": 1}));
        round_trip(json!(u64::MAX), json!(-1));
        round_trip(json!(0.1), json!(0.25));
    }

    #[test]
    fn hostile_patches_are_refused() {
        let base = json!([{"id": 1, "x": 0}]);
        let bad: Vec<Vec<Op>> = vec![
            vec![Op::Items(1), Op::Copy(2)],
            vec![Op::Items(1), Op::Seek(0)],
            vec![Op::Items(2), Op::Edit],
            vec![Op::Fields(1)],
            vec![Op::Add(1)],
            vec![Op::Set, Op::Seq(1)],
            vec![Op::Items(0), Op::Null],
            vec![
                Op::Set,
                Op::Map(2),
                Op::Key("b".into()),
                Op::Null,
                Op::Key("a".into()),
                Op::Null,
            ],
            vec![Op::Set, Op::F64(f64::NAN)],
            vec![Op::Set, Op::I(3)],
        ];
        for ops in bad {
            assert!(apply_patch(&base, &ops).is_err(), "{ops:?}");
        }
        // Copying one element over and over cannot build more than MAX_NODES.
        let wide = Value::Array(vec![json!({"id": 0, "x": vec![0; 1000]})]);
        let mut ops = vec![Op::Items(400)];
        for _ in 0..200 {
            ops.push(Op::Copy(1));
            ops.push(Op::Seek(0));
        }
        assert_eq!(apply_patch(&wide, &ops), Err(PatchError::TooLarge));
        // Deep nesting stops at MAX_DEPTH.
        let mut deep = vec![Op::Set];
        deep.extend(std::iter::repeat_n(Op::Seq(1), 10_000));
        deep.push(Op::Null);
        assert_eq!(apply_patch(&base, &deep), Err(PatchError::TooDeep));
    }
}
