//! What a failed statement of an object's SQLite is said as: logged whole, answered as storage
//! being unavailable, since nothing was changed.

use crate::core::Problem;

pub fn storage(e: worker::Error) -> Problem {
    worker::console_error!("storage: {e}");
    Problem::unavailable("Storage failed just now, so nothing was changed; try again.")
}
