//! The demo's tools: screenshots saved under a UTC timestamp.

/// Writes a frame as `lanthorn-YYYYMMDD-HHMMSS.png` (UTC) in `dir` (the current folder by
/// default); what happened, for the panel.
pub(super) fn save_timestamped(
    img: &image::RgbaImage,
    dir: Option<&std::path::Path>,
    panel: bool,
) -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let stem = format!("lanthorn-{}", timestamp(secs));
    let at = |name: String| dir.map_or_else(|| std::path::PathBuf::from(&name), |d| d.join(&name));
    // Two in one second: -2, -3, … rather than overwriting.
    let mut path = at(format!("{stem}.png"));
    let mut n = 2;
    while path.exists() && n < 1000 {
        path = at(format!("{stem}-{n}.png"));
        n += 1;
    }
    match crate::app::capture::save_png(img, &path) {
        Ok(()) => {
            let what = if panel { " (with the panel)" } else { "" };
            println!("saved {}{what}", path.display());
            format!("saved {}{what}", path.display())
        }
        Err(e) => format!("could not save the frame: {e:#}"),
    }
}

/// `YYYYMMDD-HHMMSS` of a Unix time (UTC).
pub(super) fn timestamp(secs: u64) -> String {
    let (days, rest) = ((secs / 86_400) as i64, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + (month <= 2) as i64;
    format!(
        "{year:04}{month:02}{day:02}-{:02}{:02}{:02}",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn timestamps_are_utc_civil_dates() {
        // 2026-12-01 16:35:36 UTC (checked with `date -u -d @1796142936`).
        assert_eq!(super::timestamp(1_796_142_936), "20261201-163536");
        assert_eq!(super::timestamp(0), "19700101-000000");
        assert_eq!(super::timestamp(951_782_400), "20000229-000000");
    }
}
