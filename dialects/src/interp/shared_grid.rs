//! Devices of one grid running as threads of one process, their collectives over shared memory
//! ([`SharedGrid`], [`ThreadDevice`]), and [`run_on_grid`], which runs a closure once per
//! device on its own thread and collects the results.
//!
//! A collective is a *rendezvous*: the members of a group (see [`super::devices`]) each put in
//! a tensor; the last to arrive completes it and wakes the others, who each take the whole set.
//! Rendezvous are keyed by the group (its axes and the coordinates of the other axes) and by how
//! many collectives the group has done before, so groups proceed independently.
//!
//! Nothing ever waits forever: when a device fails (its closure returns an error or panics) the
//! grid is *poisoned* and every waiting or later collective returns an error; when every device
//! that has not finished is waiting in a rendezvous that cannot complete (a member finished, or
//! the members disagree on the order of their collectives) the grid detects the deadlock and
//! poisons itself with a message saying so.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use super::devices::{Communicator, GridShape};
use super::value::Tensor;

/// A group's rendezvous key: its axes, the coordinates of the device on the other axes (every
/// member has the same), and the group's collective count.
type Key = (Vec<usize>, Vec<usize>, u64);

/// One collective in progress.
struct Rendezvous {
    parts: Vec<Option<Tensor>>,
    arrived: usize,
    /// Set when the last member arrives.
    done: Option<Arc<Vec<Tensor>>>,
    /// Members that took `done` (the rendezvous is dropped when all have).
    taken: usize,
}

#[derive(Default)]
struct State {
    rendezvous: HashMap<Key, Rendezvous>,
    /// Devices blocked in an incomplete rendezvous.
    waiting: usize,
    /// Devices whose program has returned (successfully or not).
    finished: usize,
    /// Why the grid stopped (the first failure), if it did.
    poisoned: Option<String>,
}

/// The shared state of a grid of devices running as threads.
pub struct SharedGrid {
    shape: GridShape,
    state: Mutex<State>,
    wake: Condvar,
}

impl SharedGrid {
    pub fn new(shape: GridShape) -> Arc<SharedGrid> {
        Arc::new(SharedGrid { shape, state: Mutex::new(State::default()), wake: Condvar::new() })
    }
    pub fn shape(&self) -> &GridShape {
        &self.shape
    }
    /// The communicator of the device at `coords`.
    pub fn device(self: &Arc<Self>, coords: Vec<usize>) -> ThreadDevice {
        ThreadDevice { grid: self.clone(), coords, counts: Mutex::new(HashMap::new()) }
    }
    fn lock(&self) -> MutexGuard<'_, State> {
        // a panic while holding the lock cannot leave the state half-updated in a way that
        // matters more than the poisoning that follows it
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
    /// Stops the grid: every collective now fails with `why` (the first reason is kept).
    pub fn poison(&self, why: &str) {
        let mut st = self.lock();
        if st.poisoned.is_none() {
            st.poisoned = Some(why.to_string());
        }
        drop(st);
        self.wake.notify_all();
    }
    /// Records that a device's program returned; detects a deadlock of the others.
    pub fn finish(&self) {
        let mut st = self.lock();
        st.finished += 1;
        self.check_deadlock(&mut st);
        drop(st);
        self.wake.notify_all();
    }
    fn check_deadlock(&self, st: &mut State) {
        if st.waiting > 0 && st.waiting + st.finished == self.shape.num_devices() && st.poisoned.is_none() {
            st.poisoned = Some(format!(
                "deadlock: {} device(s) wait in collectives that can never complete (a member of their group \
                 finished, or the devices do not run the same collectives in the same order)",
                st.waiting
            ));
        }
    }
    /// Puts `value` into the rendezvous `key` as member `index` of `size`, waits for the others,
    /// and returns every member's value.
    fn rendezvous(&self, key: Key, index: usize, size: usize, value: Tensor) -> Result<Arc<Vec<Tensor>>, String> {
        let mut st = self.lock();
        if let Some(why) = &st.poisoned {
            return Err(stopped(why));
        }
        let r = st.rendezvous.entry(key.clone()).or_insert_with(|| Rendezvous {
            parts: vec![None; size],
            arrived: 0,
            done: None,
            taken: 0,
        });
        if r.parts.len() != size || r.parts[index].is_some() {
            let why = "devices disagree on a collective's group".to_string();
            st.poisoned = Some(why.clone());
            drop(st);
            self.wake.notify_all();
            return Err(why);
        }
        r.parts[index] = Some(value);
        r.arrived += 1;
        if r.arrived == size {
            let parts: Vec<Tensor> = r.parts.iter_mut().map(|p| p.take().unwrap_or_else(empty)).collect();
            r.done = Some(Arc::new(parts));
            st.waiting -= size - 1;
            drop(st);
            self.wake.notify_all();
            return self.take(&key, size);
        }
        st.waiting += 1;
        self.check_deadlock(&mut st);
        loop {
            // completed first: its members no longer count as waiting
            if st.rendezvous.get(&key).is_some_and(|r| r.done.is_some()) {
                drop(st);
                return self.take(&key, size);
            }
            if let Some(why) = &st.poisoned {
                let why = stopped(why);
                st.waiting = st.waiting.saturating_sub(1);
                return Err(why);
            }
            st = self.wake.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }
    /// A member's copy of a completed rendezvous (the last taker removes it).
    fn take(&self, key: &Key, size: usize) -> Result<Arc<Vec<Tensor>>, String> {
        let mut st = self.lock();
        let Some(r) = st.rendezvous.get_mut(key) else {
            return Err("a collective vanished (this is a bug)".into());
        };
        r.taken += 1;
        let out = r.done.clone().ok_or("a collective was taken before it completed (this is a bug)")?;
        if r.taken == size {
            st.rendezvous.remove(key);
        }
        Ok(out)
    }
}

fn stopped(why: &str) -> String {
    format!("stopped because another device failed: {why}")
}

fn empty() -> Tensor {
    Tensor { shape: vec![0], data: super::value::TensorData::F32(Vec::new()) }
}

/// One device of a [`SharedGrid`]: a thread's communicator.
pub struct ThreadDevice {
    grid: Arc<SharedGrid>,
    coords: Vec<usize>,
    /// Collectives done so far, per group (axes, coordinates on the other axes).
    counts: Mutex<HashMap<(Vec<usize>, Vec<usize>), u64>>,
}

impl Communicator for ThreadDevice {
    fn grid(&self) -> &GridShape {
        &self.grid.shape
    }
    fn coords(&self) -> &[usize] {
        &self.coords
    }
    fn exchange(&self, axes: &[usize], value: Tensor) -> Result<Vec<Tensor>, String> {
        let shape = &self.grid.shape;
        shape.check_axes(axes)?;
        let size = shape.group_size(axes);
        if size == 1 {
            return Ok(vec![value]);
        }
        let others: Vec<usize> = (0..shape.rank())
            .filter(|a| !axes.contains(a))
            .map(|a| self.coords[a])
            .collect();
        let group = (axes.to_vec(), others);
        let seq = {
            let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
            let c = counts.entry(group.clone()).or_insert(0);
            *c += 1;
            *c - 1
        };
        let index = shape.index_in_group(&self.coords, axes);
        let all = self.grid.rendezvous((group.0, group.1, seq), index, size, value)?;
        Ok(all.as_ref().clone())
    }
}

/// Runs `program` once per device of `grid`, each on its own thread with its communicator, and
/// returns the results in device order (row-major coordinates). A device whose program fails
/// (or panics) stops the grid, so the others' collectives fail instead of waiting: every
/// device returns. `stack_size` is the stack of each device thread.
pub fn run_on_grid<T: Send>(
    grid: &GridShape,
    stack_size: usize,
    program: &(dyn Fn(&ThreadDevice) -> Result<T, String> + Sync),
) -> Vec<Result<T, String>> {
    let shared = SharedGrid::new(grid.clone());
    let n = grid.num_devices();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|d| {
                let device = shared.device(grid.coords(d));
                let shared = shared.clone();
                std::thread::Builder::new()
                    .name(format!("xcs-device-{d}"))
                    .stack_size(stack_size)
                    .spawn_scoped(s, move || {
                        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| program(&device)))
                            .unwrap_or_else(|_| Err("the device's thread panicked (this is a bug)".to_string()));
                        if let Err(e) = &out {
                            shared.poison(&format!("device ({}) failed: {e}", coords_text(device.coords())));
                        }
                        shared.finish();
                        out
                    })
            })
            .collect();
        if handles.iter().any(|h| h.is_err()) {
            // the others would wait for it forever
            shared.poison("a device thread could not start");
        }
        handles
            .into_iter()
            .map(|h| match h {
                Ok(h) => h.join().unwrap_or_else(|_| Err("a device thread panicked (this is a bug)".into())),
                Err(e) => Err(format!("cannot start a device thread: {e}")),
            })
            .collect()
    })
}

/// `0, 1` for coordinates `[0, 1]`.
pub fn coords_text(c: &[usize]) -> String {
    c.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
}
