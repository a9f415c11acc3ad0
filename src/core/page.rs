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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_row_more_means_another_page() {
        assert_eq!(split(vec![5, 4, 3], 2, |r| format!("c{r}")), (vec![5, 4], Some("c4".into())));
        assert_eq!(split(vec![5, 4], 2, |r| format!("c{r}")), (vec![5, 4], None));
    }
}
