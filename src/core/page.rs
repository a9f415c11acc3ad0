//! Pages of a list: a store reads one row more than the page, and that row tells whether another
//! page follows; the cursor names the last row the page shows.

/// Keeps the first `limit` rows and, where more followed, the cursor of the last one kept.
pub fn split<R>(mut rows: Vec<R>, limit: usize, cursor: impl Fn(&R) -> String) -> (Vec<R>, Option<String>) {
    if rows.len() <= limit {
        return (rows, None);
    }
    rows.truncate(limit);
    let next = rows.last().map(cursor);
    (rows, next)
}

/// The cursor of a newest-first list: the last row's creation time and id, as an opaque token
/// (hex of `created_at id`) so that callers pass it back rather than build it.
pub fn after(created_at: &str, id: &str) -> String {
    format!("{created_at} {id}").bytes().map(|b| format!("{b:02x}")).collect()
}

/// The creation time and id a cursor of `after` names, where the id is one `is_id` takes.
pub fn read_after(token: &str, is_id: fn(&str) -> bool) -> Result<(String, String), crate::core::Problem> {
    let bad =
        || crate::core::Problem::invalid("/cursor", "is not a cursor this list gave; pass next_cursor as it came");
    if !token.len().is_multiple_of(2) || token.len() > 256 {
        return Err(bad());
    }
    let bytes: Option<Vec<u8>> =
        (0..token.len()).step_by(2).map(|i| u8::from_str_radix(token.get(i..i + 2)?, 16).ok()).collect();
    let text = String::from_utf8(bytes.ok_or_else(bad)?).map_err(|_| bad())?;
    let (created_at, id) = text.split_once(' ').ok_or_else(bad)?;
    if !is_id(id) || created_at.is_empty() {
        return Err(bad());
    }
    Ok((created_at.to_string(), id.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_row_more_means_another_page() {
        assert_eq!(split(vec![5, 4, 3], 2, |r| format!("c{r}")), (vec![5, 4], Some("c4".into())));
        assert_eq!(split(vec![5, 4], 2, |r| format!("c{r}")), (vec![5, 4], None));
    }
}
