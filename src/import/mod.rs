//! Importers of foreign level formats (Quake BSP29).

pub mod q1;
