//! Claims a change holds on keys while it is in flight, such as the org's directory claiming a
//! playbook's id and the name a change gives it: two changes that share a key run one after the
//! other, and changes on different keys overlap, even across the awaits between their check and
//! their write. A change takes all its keys or none, so no change holds one key while it waits
//! for another, and none can wait on the other in a circle.
//!
//! Single-threaded, as a Durable Object is: the set sits in a `RefCell` never borrowed across an
//! await. A change blocked on a key waits for that key's release alone, then reads again.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::Hash;

use futures::channel::oneshot;

/// The keys claimed now, each with the changes waiting for it to be released.
pub struct Claims<K> {
    held: RefCell<HashMap<K, Vec<oneshot::Sender<()>>>>,
}

/// The keys one change holds; dropping it releases them, on every path out of the change.
pub struct Held<'c, K: Eq + Hash> {
    claims: &'c Claims<K>,
    keys: Vec<K>,
}

impl<K: Eq + Hash> Default for Claims<K> {
    fn default() -> Self {
        Claims { held: RefCell::new(HashMap::new()) }
    }
}

impl<K: Eq + Hash + Clone> Claims<K> {
    /// Claims every one of `keys`, or, when another change holds one of them, none: then the
    /// answer is what resolves once that key is released.
    pub fn try_claim(&self, keys: Vec<K>) -> Result<Held<'_, K>, oneshot::Receiver<()>> {
        let mut held = self.held.borrow_mut();
        if let Some(taken) = keys.iter().find(|k| held.contains_key(k)) {
            let (release, released) = oneshot::channel();
            held.entry(taken.clone()).or_default().push(release);
            return Err(released);
        }
        for key in &keys {
            held.insert(key.clone(), Vec::new());
        }
        Ok(Held { claims: self, keys })
    }

    /// Reads what a change starts from and the keys it needs, and claims them, with no await
    /// between the read and the claim; while a key is held elsewhere it waits for its release
    /// and reads again, since what it read may have changed meanwhile.
    ///
    /// # Errors
    /// The first error `read` gives, with nothing claimed.
    pub async fn claim<T, E>(&self, mut read: impl FnMut() -> Result<(Vec<K>, T), E>) -> Result<(Held<'_, K>, T), E> {
        loop {
            let (keys, value) = read()?;
            match self.try_claim(keys) {
                Ok(held) => return Ok((held, value)),
                // Released, or its holder gone with the whole set: either way, read again.
                Err(released) => {
                    let _ = released.await;
                }
            }
        }
    }
}

impl<K: Eq + Hash> Drop for Held<'_, K> {
    fn drop(&mut self) {
        let woken: Vec<_> = {
            let mut held = self.claims.held.borrow_mut();
            self.keys.iter().filter_map(|k| held.remove(k)).flatten().collect()
        };
        // A waiter that went away meanwhile has nothing to wake.
        for release in woken {
            let _ = release.send(());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::{Cell, RefCell};
    use std::rc::Rc;

    use futures::channel::oneshot;
    use futures::executor::LocalPool;
    use futures::task::LocalSpawnExt;
    use futures::FutureExt;

    use super::Claims;

    /// A change as the directory makes one: claims its keys, then awaits `done` as it would the
    /// playbook's object, and answers what `done` sends, releasing its keys either way.
    /// `log` records when each change got its claims and when it ended.
    async fn change(
        claims: Rc<Claims<&'static str>>,
        name: &'static str,
        keys: Vec<&'static str>,
        done: oneshot::Receiver<Result<(), ()>>,
        log: Rc<RefCell<Vec<String>>>,
    ) -> Result<(), ()> {
        let (_held, ()) = claims.claim(|| Ok::<_, ()>((keys.clone(), ()))).await?;
        log.borrow_mut().push(format!("{name} in"));
        let outcome = done.await.unwrap_or(Err(()));
        log.borrow_mut().push(format!("{name} out"));
        outcome
    }

    struct Harness {
        pool: LocalPool,
        claims: Rc<Claims<&'static str>>,
        log: Rc<RefCell<Vec<String>>>,
    }

    impl Harness {
        fn new() -> Harness {
            Harness { pool: LocalPool::new(), claims: Rc::new(Claims::default()), log: Rc::default() }
        }

        /// Starts a change on `keys`; what it is sent ends it.
        fn start(&mut self, name: &'static str, keys: Vec<&'static str>) -> oneshot::Sender<Result<(), ()>> {
            let (end, done) = oneshot::channel();
            let task = change(self.claims.clone(), name, keys, done, self.log.clone());
            self.pool
                .spawner()
                .spawn_local(async move {
                    let _ = task.await;
                })
                .unwrap();
            end
        }

        /// Runs every change as far as it goes, and takes what the log gained.
        fn settle(&mut self) -> Vec<String> {
            self.pool.run_until_stalled();
            self.log.borrow_mut().drain(..).collect()
        }
    }

    #[test]
    fn changes_that_share_a_key_run_one_at_a_time() {
        let mut h = Harness::new();
        let ends: Vec<_> = ["a", "b", "c"].into_iter().map(|n| h.start(n, vec!["name:close"])).collect();
        assert_eq!(h.settle(), ["a in"], "one change holds the name; the others wait");
        let mut ends = ends.into_iter();
        ends.next().unwrap().send(Ok(())).unwrap();
        assert_eq!(h.settle(), ["a out", "b in"]);
        ends.next().unwrap().send(Ok(())).unwrap();
        assert_eq!(h.settle(), ["b out", "c in"]);
        ends.next().unwrap().send(Ok(())).unwrap();
        assert_eq!(h.settle(), ["c out"]);
        assert!(h.claims.held.borrow().is_empty(), "nothing stays claimed");
    }

    #[test]
    fn changes_on_different_keys_overlap() {
        let mut h = Harness::new();
        let a = h.start("a", vec!["id:1", "name:close"]);
        let b = h.start("b", vec!["id:2", "name:open"]);
        assert_eq!(h.settle(), ["a in", "b in"], "neither waits for the other's round trip");
        b.send(Ok(())).unwrap();
        a.send(Ok(())).unwrap();
        assert_eq!(h.settle(), ["b out", "a out"]);
    }

    #[test]
    fn one_shared_key_is_enough_to_wait() {
        let mut h = Harness::new();
        let a = h.start("a", vec!["id:1", "name:close"]);
        let b = h.start("b", vec!["id:1", "name:open"]);
        assert_eq!(h.settle(), ["a in"], "a second change of the same playbook waits, whatever its name");
        a.send(Ok(())).unwrap();
        assert_eq!(h.settle(), ["a out", "b in"]);
        drop(b);
        h.settle();
    }

    #[test]
    fn a_waiting_change_holds_nothing() {
        let mut h = Harness::new();
        let a = h.start("a", vec!["name:close"]);
        let b = h.start("b", vec!["name:close", "id:2"]);
        let c = h.start("c", vec!["id:2"]);
        assert_eq!(h.settle(), ["a in", "c in"], "b waits for the name without holding its id");
        a.send(Ok(())).unwrap();
        assert_eq!(h.settle(), ["a out"], "b now waits for the id that c holds");
        c.send(Ok(())).unwrap();
        assert_eq!(h.settle(), ["c out", "b in"]);
        b.send(Ok(())).unwrap();
        assert_eq!(h.settle(), ["b out"]);
    }

    #[test]
    fn a_failed_or_abandoned_change_releases_its_claims() {
        let mut h = Harness::new();
        let a = h.start("a", vec!["name:close"]);
        let b = h.start("b", vec!["name:close"]);
        h.settle();
        a.send(Err(())).unwrap();
        assert_eq!(h.settle(), ["a out", "b in"], "an error releases the name");
        drop(b);
        assert_eq!(h.settle(), ["b out"]);

        // A change dropped in flight, as when its request goes away, releases its keys too.
        let (_end, done) = oneshot::channel();
        let in_flight = change(h.claims.clone(), "c", vec!["name:close"], done, h.log.clone());
        assert!(in_flight.now_or_never().is_none(), "it claimed, awaited its round trip, and was dropped there");
        let released = h.claims.try_claim(vec!["name:close"]);
        assert!(released.is_ok(), "nothing holds the name once the change is gone");
    }

    #[test]
    fn a_woken_change_reads_again_before_it_claims() {
        let claims = Rc::new(Claims::default());
        let reads = Rc::new(Cell::new(0));
        let (held, ()) = futures::executor::block_on(claims.claim(|| Ok::<_, ()>((vec!["id:1"], ())))).unwrap();
        let mut pool = LocalPool::new();
        let seen = Rc::new(Cell::new(0));
        {
            let (claims, reads, seen) = (claims.clone(), reads.clone(), seen.clone());
            pool.spawner()
                .spawn_local(async move {
                    let got = claims.claim(|| {
                        reads.set(reads.get() + 1);
                        Ok::<_, ()>((vec!["id:1"], reads.get()))
                    });
                    if let Ok((_held, read)) = got.await {
                        seen.set(read);
                    }
                })
                .unwrap();
        }
        pool.run_until_stalled();
        assert_eq!(reads.get(), 1, "it read once, then waited rather than polled");
        pool.run_until_stalled();
        assert_eq!(reads.get(), 1, "nothing woke it");
        drop(held);
        pool.run_until_stalled();
        assert_eq!((reads.get(), seen.get()), (2, 2), "it read again once woken, and went on with that read");

        let failed: Result<(super::Held<'_, &str>, ()), &str> =
            futures::executor::block_on(claims.claim(|| Err("storage failed")));
        assert!(failed.is_err());
        assert!(claims.held.borrow().is_empty(), "a read that fails claims nothing");
    }
}
