//! The shell's sans-IO core.
pub mod room;
