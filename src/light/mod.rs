//! Lightmap baking and atlas packing.
