// SPDX-License-Identifier: GPL-2.0

//! Releases in batches: a [`Reaper`] queues items that implement [`Reap`] and releases them
//! from a work item, with one wait (a grace period) for each batch. It knows nothing of perf:
//! it calls only the workqueue and its own locks, and [`Reap::reap`] of its items.

use crate::{
    bindings,
    prelude::*,
    str::CStr,
    sync::{LockClassKey, Mutex, SpinLock},
    types::Opaque,
};

/// Something that can be released in batches, by a [`Reaper`].
///
/// Releasing some things waits for every CPU to pass a quiescent state (a grace period): the
/// release of a probe waits until no handler of the probe can still run. A batch of them waits
/// once.
pub trait Reap: Send + Sized + 'static {
    /// Releases what the items of `batch` hold, with one wait for all of them.
    ///
    /// Called in process context, where it may sleep, by the reaper's work item or by a task
    /// that defers an item to a full reaper; several calls may run at once. The items are
    /// dropped after it returns. An item must not hold the last reference to its own reaper:
    /// the reaper's drop waits for its work item.
    fn reap(batch: &mut [Self]);
}

/// Creates a [`Reaper`] of `capacity` items whose locks and work item have lock classes of their
/// own, named `name`, as [`new_mutex!`](crate::new_mutex) does for a mutex.
#[macro_export]
macro_rules! new_reaper {
    ($capacity:expr, $name:literal $(,)?) => {{
        // Statics of this expansion site: the reapers it creates share a name and lock classes
        // whichever crate's code runs it, as lockdep needs.
        static NAME: &$crate::str::CStr = $crate::c_str!($name);
        $crate::perf::Reaper::new(
            $capacity,
            NAME,
            [
                $crate::static_lock_class!(),
                $crate::static_lock_class!(),
                $crate::static_lock_class!(),
            ],
        )
    }};
}

/// A queue of things to release in batches, from a work item.
///
/// [`Reaper::defer`] queues an item and returns at once; the reaper's work item takes every
/// item queued so far and releases them with one call of [`Reap::reap`]. While it waits, more
/// items queue up, to be released together next. At most `capacity` items wait in the queue
/// (the reaper allocates room for them when it is created, and never allocates again):
/// [`Reaper::defer`] releases an item at once, in the caller, when the queue is full. So at
/// most twice `capacity` items, the queued ones and the batch being released, are ever pending.
///
/// Dropping the reaper waits for its work item and releases what is still queued. As for
/// everything a module creates, a reaper of a module must be dropped before the module is
/// unloaded, which a reaper that is leaked (`core::mem::forget`) is not.
///
/// # Examples
///
/// ```
/// use core::sync::atomic::{AtomicUsize, Ordering};
/// use kernel::new_reaper;
/// use kernel::perf::Reap;
/// use kernel::prelude::*;
///
/// static RELEASED: AtomicUsize = AtomicUsize::new(0);
/// static BATCHES: AtomicUsize = AtomicUsize::new(0);
///
/// struct Held(usize);
///
/// impl Reap for Held {
///     fn reap(batch: &mut [Self]) {
///         // One wait for all of them, as `synchronize_rcu()` would be.
///         BATCHES.fetch_add(1, Ordering::Relaxed);
///         RELEASED.fetch_add(batch.iter().map(|held| held.0).sum(), Ordering::Relaxed);
///     }
/// }
///
/// let reaper = KBox::pin_init(new_reaper!(8, "doctest_reaper"), GFP_KERNEL)?;
/// for _ in 0..20 {
///     reaper.defer(Held(1));
/// }
/// reaper.flush();
/// assert_eq!(RELEASED.load(Ordering::Relaxed), 20);
/// assert!(BATCHES.load(Ordering::Relaxed) >= 1);
///
/// // Dropping the reaper releases what is still queued.
/// reaper.defer(Held(3));
/// drop(reaper);
/// assert_eq!(RELEASED.load(Ordering::Relaxed), 23);
/// # Ok::<(), Error>(())
/// ```
///
/// # Invariants
///
/// `pending` and `batch` each have room for `capacity` items; `work` is initialised with
/// [`Reaper::work_fn`] as its function.
#[pin_data(PinnedDrop)]
pub struct Reaper<R: Reap> {
    #[pin]
    pending: SpinLock<KVec<R>>,
    #[pin]
    batch: Mutex<KVec<R>>,
    capacity: usize,
    #[pin]
    work: Opaque<bindings::work_struct>,
}

// SAFETY: The items are `Send`; the work item is only used through the workqueue functions,
// which may be called from any thread.
unsafe impl<R: Reap> Send for Reaper<R> {}

// SAFETY: `&Reaper` only queues items under a lock, releases them under another, and queues the
// work item, which the workqueue functions allow from any thread.
unsafe impl<R: Reap> Sync for Reaper<R> {}

impl<R: Reap> Reaper<R> {
    /// Creates a reaper that queues at most `capacity` items, whose locks and work item have
    /// the lock classes `keys` (of its queue, its batch and its work item), named `name`.
    ///
    /// [`new_reaper!`] gives each reaper it creates classes of its own.
    ///
    /// [`new_reaper!`]: crate::new_reaper
    pub fn new(
        capacity: usize,
        name: &'static CStr,
        keys: [&'static LockClassKey; 3],
    ) -> impl PinInit<Self, Error> {
        try_pin_init!(Self {
            pending <- SpinLock::new(KVec::with_capacity(capacity, GFP_KERNEL)?, name, keys[0]),
            batch <- Mutex::new(KVec::with_capacity(capacity, GFP_KERNEL)?, name, keys[1]),
            capacity,
            // INVARIANT: The work item's function is `work_fn`.
            work <- Opaque::ffi_init(|slot| {
                // SAFETY: `slot` is a `work_struct` that is not in use; `work_fn` is a work
                // function for the `work` of a `Reaper<R>`, and the name and key are static.
                unsafe {
                    bindings::init_work_with_key(
                        slot,
                        Some(Self::work_fn),
                        false,
                        name.as_char_ptr(),
                        keys[2].as_ptr(),
                    )
                }
            }),
        })
    }

    /// Queues `item` to be released with the next batch, or releases it at once, in the caller,
    /// when the queue is full.
    ///
    /// It may sleep: it is called in process context.
    pub fn defer(&self, item: R) {
        let mut pending = self.pending.lock();
        let len = pending.len();
        if len >= self.capacity {
            drop(pending);
            let mut item = item;
            R::reap(core::slice::from_mut(&mut item));
            return;
        }
        pending.spare_capacity_mut()[0].write(item);
        // SAFETY: By the type invariants there was room for the item, which is initialised.
        unsafe { pending.set_len(len + 1) };
        drop(pending);
        // SAFETY: By the type invariants the work item is initialised; the reaper is pinned, and
        // its drop cancels the work item before it is freed.
        unsafe {
            bindings::queue_work_on(
                bindings::wq_misc_consts_WORK_CPU_UNBOUND as _,
                bindings::system_unbound_wq,
                self.work.get(),
            )
        };
    }

    /// Releases every item queued so far, in the caller, and waits until those that the work
    /// item took are released.
    ///
    /// It sleeps: it is called in process context.
    pub fn flush(&self) {
        // The work item releases its batch holding `batch`.
        let mut batch = self.batch.lock();
        core::mem::swap(&mut *self.pending.lock(), &mut *batch);
        Self::release(&mut batch);
    }

    /// Releases the items of `batch` and empties it, keeping its room.
    fn release(batch: &mut KVec<R>) {
        if batch.is_empty() {
            return;
        }
        R::reap(batch);
        let len = batch.len();
        let items = core::ptr::slice_from_raw_parts_mut(batch.as_mut_ptr(), len);
        // SAFETY: The first `len` items are initialised; the length is reset before they are
        // dropped, so that none is dropped twice.
        unsafe {
            batch.set_len(0);
            core::ptr::drop_in_place(items);
        }
    }

    /// # Safety
    ///
    /// `work` must be the `work` of a `Reaper<R>` that is not freed until the function returns.
    unsafe extern "C" fn work_fn(work: *mut bindings::work_struct) {
        // SAFETY: By the function requirements `work` is the `work` field of a live reaper;
        // `Opaque<work_struct>` has the layout of a `work_struct`.
        let this = unsafe { &*crate::container_of!(work, Self, work) };
        this.flush();
    }
}

#[pinned_drop]
impl<R: Reap> PinnedDrop for Reaper<R> {
    fn drop(self: Pin<&mut Self>) {
        // SAFETY: By the type invariants the work item is initialised. Once this returns it is
        // neither queued nor running, and cannot be queued again: nothing else borrows the reaper.
        unsafe { bindings::cancel_work_sync(self.work.get()) };
        self.flush();
    }
}
