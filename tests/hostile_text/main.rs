//! Hostile text against every parser a request reaches: inputs generated from each grammar's own
//! pieces, valid ones mixed with broken ones, each read with no panic, within a time bound and
//! within a memory bound one request could afford.

#[path = "../common/mod.rs"]
mod common;

mod address;
mod cron;
mod document;
mod jsonrpc;
mod mermaid;
mod oauth;
mod pieces;
mod schema;
mod template;
mod yaml;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

// ---- Bounds, and the allocator that measures them ----

/// The most extra memory one parse may hold at its peak. An isolate has 128 MiB for the module,
/// the runtime's own state and every request in flight: a quarter of it for one parse is as much
/// as one request could take.
const MEMORY_MAX: usize = 32 << 20;

/// The most CPU time one parse may take. A liveness guard against blow-ups (exponential work,
/// runaway loops), not a measure of speed: a debug build stays far inside, and the thread's own
/// CPU time is what counts, so tests on parallel threads and a busy machine do not.
const TIME_MAX: Duration = Duration::from_secs(2);

/// A parse running this long has hung: the run ends, naming its test, rather than hang the suite
/// until CI's own limit (`TIME_MAX` is checked only once a parse returns).
const HUNG_AFTER: Duration = Duration::from_secs(60);

/// The parses running now, by the name of their test's thread, and since when.
static RUNNING: Mutex<BTreeMap<String, Instant>> = Mutex::new(BTreeMap::new());
static WATCHING: Once = Once::new();

/// Starts, once, the thread that ends the run when a parse has hung.
fn watch() {
    WATCHING.call_once(|| {
        std::thread::spawn(|| loop {
            std::thread::sleep(Duration::from_secs(1));
            let running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((test, since)) = running.iter().find(|(_, since)| since.elapsed() > HUNG_AFTER) {
                eprintln!("{test}: a parse has run for {:?}, past {HUNG_AFTER:?}: it hangs", since.elapsed());
                std::process::abort();
            }
        });
    });
}

/// A parse in `RUNNING` while it runs, and out of it however it ends, a panic included.
struct Running(String);

impl Running {
    fn now() -> Running {
        watch();
        let test = std::thread::current().name().unwrap_or("a test").to_string();
        RUNNING.lock().unwrap_or_else(|e| e.into_inner()).insert(test.clone(), Instant::now());
        Running(test)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        RUNNING.lock().unwrap_or_else(|e| e.into_inner()).remove(&self.0);
    }
}

/// Past this the allocator refuses, so that a blow-up ends the run at once ("memory allocation
/// failed") instead of swapping the machine; `MEMORY_MAX` is what the properties assert.
const CEILING: isize = 1 << 30;

/// Counts what each thread holds. Tests run on parallel threads and each case is measured on the
/// thread that runs it, so no other test's allocations count toward its peak.
struct Counting;

thread_local! {
    // Signed: a thread may free what another allocated, and only differences are read.
    static HELD: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
    static LIMIT: Cell<isize> = const { Cell::new(isize::MAX) };
}

fn grow(bytes: usize) -> bool {
    let bytes = isize::try_from(bytes).unwrap_or(isize::MAX);
    HELD.try_with(|held| {
        let now = held.get().saturating_add(bytes);
        if now > LIMIT.get() {
            return false;
        }
        held.set(now);
        PEAK.set(PEAK.get().max(now));
        true
    })
    .unwrap_or(true)
}

fn shrink(bytes: usize) {
    let bytes = isize::try_from(bytes).unwrap_or(isize::MAX);
    let _ = HELD.try_with(|held| held.set(held.get().saturating_sub(bytes)));
}

// SAFETY: every call goes to `System` with the caller's own arguments; the counting around it
// touches only const-initialised thread-locals, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !grow(layout.size()) {
            return std::ptr::null_mut();
        }
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            shrink(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !grow(layout.size()) {
            return std::ptr::null_mut();
        }
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            shrink(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        shrink(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old = layout.size();
        if new_size > old && !grow(new_size - old) {
            return std::ptr::null_mut();
        }
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        match (p.is_null(), new_size > old) {
            (true, true) => shrink(new_size - old),
            (false, false) => shrink(old - new_size),
            _ => {}
        }
        p
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// Lifts the ceiling when a measured parse ends, by returning or by panicking.
struct Measuring;

impl Drop for Measuring {
    fn drop(&mut self) {
        LIMIT.set(isize::MAX);
    }
}

/// The CPU time this thread has spent: what one parse costs, whatever else the machine runs
/// beside it (parallel tests, a build), which wall time would count too.
fn thread_cpu() -> Duration {
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `now` is a valid timespec the call writes; the clock id is a constant Linux knows.
    let read = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    assert_eq!(read, 0, "the thread's CPU clock could not be read");
    Duration::new(u64::try_from(now.tv_sec).unwrap_or(0), u32::try_from(now.tv_nsec).unwrap_or(0))
}

/// Runs one parse, measured on this thread, and fails the case past either bound. What the parse
/// returns is held until the measure ends, so it counts too.
fn bounded<T>(parse: impl FnOnce() -> T) -> Result<T, TestCaseError> {
    let _running = Running::now();
    let base = HELD.with(Cell::get);
    PEAK.set(base);
    LIMIT.set(base.saturating_add(CEILING));
    let guard = Measuring;
    let start = thread_cpu();
    let out = parse();
    let took = thread_cpu().saturating_sub(start);
    drop(guard);
    let peak = usize::try_from(PEAK.get() - base).unwrap_or(0);
    prop_assert!(peak <= MEMORY_MAX, "held {peak} bytes at the peak, more than {MEMORY_MAX}");
    prop_assert!(took <= TIME_MAX, "took {took:?}, more than {TIME_MAX:?}");
    Ok(out)
}

/// A fixed number of cases, and no regression files written into the repository.
fn cases(cases: u32) -> ProptestConfig {
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}
