//! Visibility: portal flow, object culling, PVS baseline.
