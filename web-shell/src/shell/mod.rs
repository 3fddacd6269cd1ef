//! The shell's sans-IO core.
pub mod driver;
pub mod room;
pub mod view;
