//! The file's PVS: each leaf's run-length-compressed row (bit j = leaf j + 1), re-indexed by
//! cell: one row per cell, one bit per cell.

use lanthorn_level::Pvs;

use super::lumps::Lumps;
use super::Q1Error;

/// Decompresses one row of `row_bytes` bytes starting at `ofs` (a zero byte is followed by a
/// count of zero bytes). Runs past the row's end are cut off, as Quake tolerates them.
pub(super) fn decompress(vis: &[u8], ofs: usize, row_bytes: usize) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(row_bytes);
    let mut i = ofs;
    while out.len() < row_bytes {
        let b = *vis.get(i)?;
        if b != 0 {
            out.push(b);
            i += 1;
        } else {
            let count = *vis.get(i + 1)? as usize;
            i += 2;
            let n = count.min(row_bytes - out.len());
            out.resize(out.len() + n, 0);
        }
    }
    Some(out)
}

/// The PVS by cell. Leaves with no row (offset -1, or no visibility lump) see everything,
/// as in Quake. `None` when the file has no visibility data at all.
pub(super) fn build(
    l: &Lumps,
    leaf_cell: &[Option<u32>],
    cell_leaf: &[u32],
    file: &str,
) -> Result<Option<Pvs>, Q1Error> {
    if l.visibility.is_empty() {
        return Ok(None);
    }
    let vis_leafs = l.models.first().map(|m| m.vis_leafs).unwrap_or(0).max(0) as usize;
    if vis_leafs >= l.leafs.len() + 1 {
        return Err(Q1Error::corrupt(
            file,
            "models",
            format!(
                "model 0 has {vis_leafs} vis leaves but the file only {} leaves",
                l.leafs.len()
            ),
        ));
    }
    let leaf_row_bytes = vis_leafs.div_ceil(8);
    let n = cell_leaf.len();
    let row_bytes = n.div_ceil(8);
    let mut rows = vec![0u8; row_bytes * n];
    for (c, &leaf) in cell_leaf.iter().enumerate() {
        let row = &mut rows[c * row_bytes..(c + 1) * row_bytes];
        let ofs = l.leafs[leaf as usize].vis_ofs;
        if ofs < 0 {
            row.fill(0xff);
            continue;
        }
        let bits = decompress(l.visibility, ofs as usize, leaf_row_bytes).ok_or_else(|| {
            Q1Error::corrupt(
                file,
                "visibility",
                format!(
                    "leaf {leaf}: row at offset {ofs} runs past the lump's end ({} bytes)",
                    l.visibility.len()
                ),
            )
        })?;
        for j in 0..vis_leafs {
            if bits[j >> 3] & (1 << (j & 7)) != 0 {
                if let Some(Some(to)) = leaf_cell.get(j + 1) {
                    row[*to as usize >> 3] |= 1 << (to & 7);
                }
            }
        }
    }
    Ok(Some(Pvs { row_bytes, rows }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_length_rows() {
        assert_eq!(decompress(&[5, 0, 3, 7], 0, 5), Some(vec![5, 0, 0, 0, 7]));
        assert_eq!(decompress(&[0, 9], 0, 4), Some(vec![0; 4]));
        assert_eq!(decompress(&[1, 2], 0, 3), None);
        assert_eq!(decompress(&[1, 0], 0, 3), None);
    }
}
