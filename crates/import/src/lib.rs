//! Importers of foreign level formats (Quake BSP29).

#![warn(unreachable_pub)]
#![warn(missing_docs)]

pub mod pak;
pub mod pk3;
mod portalize;
pub mod q1;
pub mod q3;
