//! What the bounded and unbounded channels' handles share: the receiving
//! half's methods, the same for [`Receiver`] and [`UnboundedReceiver`]
//! (both hold an `Rx`), the senders' methods that do not depend on the
//! bound, and the weak senders (both hold a `WeakTx`),
//! written once here, each method with its own tokio link in its docs.
//!
//! [`Receiver`]: super::Receiver
//! [`UnboundedReceiver`]: super::UnboundedReceiver

/// A handle method's docs: the first line linking tokio's `$rx::$method`,
/// then `$text`, then "# Differences from tokio: None.".
macro_rules! rx_doc {
    ($rx:expr, $method:ident, $($text:expr),+ $(,)?) => {
        concat!(
            "Simulated/own version of\n[`tokio::sync::mpsc::", $rx, "::", stringify!($method),
            "`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.", $rx, ".html#method.",
            stringify!($method), "):\n", $($text),+,
            "\n\n# Differences from tokio\n\nNone."
        )
    };
}

/// The methods of the receiver `$rx` (its senders are `$sender` and
/// `$weak`); `$close` says what [`close`] leaves receivable.
macro_rules! receiver_methods {
    ($rx:literal, $sender:literal, $weak:literal, $close:literal) => {
        #[doc = rx_doc!($rx, recv,
            "the next message, or `None` once every sender is gone (or the channel was closed) \
             and the buffer is empty.\n\n# Cancel safety\n\nCancel safe: a message is only \
             taken when the future completes.")]
        pub async fn recv(&mut self) -> Option<T> {
            std::future::poll_fn(|cx| self.chan.chan.recv(cx)).await
        }

        #[doc = rx_doc!($rx, recv_many,
            "appends up to `limit` messages to `buffer` (waiting for at least one), returning \
             how many; 0 when `limit` is 0 or the channel is done.\n\n# Cancel safety\n\n\
             Cancel safe.")]
        pub async fn recv_many(&mut self, buffer: &mut Vec<T>, limit: usize) -> usize {
            std::future::poll_fn(|cx| self.chan.chan.recv_many(cx, buffer, limit)).await
        }

        #[doc = rx_doc!($rx, try_recv, "the next message if one is buffered.")]
        pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
            self.chan.chan.try_recv().map_err(|done| {
                if done {
                    TryRecvError::Disconnected
                } else {
                    TryRecvError::Empty
                }
            })
        }

        #[doc = rx_doc!($rx, blocking_recv,
            "[`recv`](Self::recv), blocking the thread.\n\n# Panics\n\nInside a simulation \
             (tokio: inside an asynchronous execution context).")]
        #[track_caller]
        pub fn blocking_recv(&mut self) -> Option<T> {
            block_on(concat!($rx, "::blocking_recv"), self.recv())
        }

        #[doc = rx_doc!($rx, blocking_recv_many,
            "[`recv_many`](Self::recv_many), blocking the thread.\n\n# Panics\n\n\
             Inside a simulation.")]
        #[track_caller]
        pub fn blocking_recv_many(&mut self, buffer: &mut Vec<T>, limit: usize) -> usize {
            block_on(concat!($rx, "::blocking_recv_many"), self.recv_many(buffer, limit))
        }

        #[doc = rx_doc!($rx, close, "refuses new sends; ", $close)]
        pub fn close(&mut self) {
            self.chan.chan.close();
        }

        #[doc = rx_doc!($rx, is_closed,
            "whether [`close`](Self::close) was called or every sender is gone.")]
        pub fn is_closed(&self) -> bool {
            self.chan.chan.rx_is_closed()
        }

        #[doc = rx_doc!($rx, is_empty, "whether no message is buffered.")]
        pub fn is_empty(&self) -> bool {
            self.len() == 0
        }

        #[doc = rx_doc!($rx, len, "the number of buffered messages.")]
        pub fn len(&self) -> usize {
            self.chan.chan.len()
        }

        #[doc = rx_doc!($rx, poll_recv, "[`recv`](Self::recv) as a poll function.")]
        pub fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
            self.chan.chan.recv(cx)
        }

        #[doc = rx_doc!($rx, poll_recv_many,
            "[`recv_many`](Self::recv_many) as a poll function.")]
        pub fn poll_recv_many(
            &mut self,
            cx: &mut Context<'_>,
            buffer: &mut Vec<T>,
            limit: usize,
        ) -> Poll<usize> {
            self.chan.chan.recv_many(cx, buffer, limit)
        }

        #[doc = rx_doc!($rx, sender_strong_count, "the number of [`", $sender, "`]s.")]
        pub fn sender_strong_count(&self) -> usize {
            self.chan.chan.strong_count()
        }

        #[doc = rx_doc!($rx, sender_weak_count, "the number of [`", $weak, "`]s.")]
        pub fn sender_weak_count(&self) -> usize {
            self.chan.chan.weak_count()
        }
    };
}

/// The weak sender `$weak` of the senders `$sender`: `Clone`, `Debug`,
/// `upgrade`, `strong_count` and `weak_count`.
macro_rules! weak_sender {
    ($weak:ident, $sender:ident) => {
        handle_traits!(@clone $weak);

        impl<T> $weak<T> {
            #[doc = rx_doc!(stringify!($weak), upgrade,
                        "upgrades to a strong [`", stringify!($sender), "`], if one still exists.")]
            pub fn upgrade(&self) -> Option<$sender<T>> {
                self.chan.upgrade().map(|chan| $sender { chan })
            }

            #[doc = rx_doc!(stringify!($weak), strong_count,
                        "the number of [`", stringify!($sender), "`]s.")]
            pub fn strong_count(&self) -> usize {
                self.chan.chan.strong_count()
            }

            #[doc = rx_doc!(stringify!($weak), weak_count,
                        "the number of [`", stringify!($weak), "`]s.")]
            pub fn weak_count(&self) -> usize {
                self.chan.chan.weak_count()
            }
        }

        impl<T> fmt::Debug for $weak<T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($weak)).finish()
            }
        }
    };
}

/// The methods every sender `$tx` of a channel has, whatever its bound:
/// `closed`, `is_closed`, `same_channel`, `downgrade` (to `$weak`) and the
/// sender counts.
macro_rules! sender_methods {
    ($tx:ident, $weak:ident) => {
        #[doc = rx_doc!(stringify!($tx), closed,
                                            "completes once the receiver is dropped or closed.")]
        pub async fn closed(&self) {
            self.chan.chan.closed().await;
        }

        #[doc = rx_doc!(stringify!($tx), is_closed, "whether the receiver is dropped or closed.")]
        pub fn is_closed(&self) -> bool {
            self.chan.chan.is_closed()
        }

        #[doc = rx_doc!(stringify!($tx), same_channel,
                                            "whether both senders send into one channel.")]
        pub fn same_channel(&self, other: &Self) -> bool {
            self.chan.same_channel(&other.chan)
        }

        #[doc = rx_doc!(stringify!($tx), downgrade,
                                            "a [`", stringify!($weak), "`] for this channel.")]
        pub fn downgrade(&self) -> $weak<T> {
            $weak {
                chan: WeakTx::new(&self.chan),
            }
        }

        #[doc = rx_doc!(stringify!($tx), strong_count, "the number of [`", stringify!($tx), "`]s.")]
        pub fn strong_count(&self) -> usize {
            self.chan.chan.strong_count()
        }

        #[doc = rx_doc!(stringify!($tx), weak_count, "the number of [`", stringify!($weak), "`]s.")]
        pub fn weak_count(&self) -> usize {
            self.chan.chan.weak_count()
        }
    };
}

/// `Debug` for the handle `$ty` (its name and its channel), and `Clone`
/// (another handle on the same channel) when `clone` is given.
macro_rules! handle_traits {
    ($ty:ident $(, $clone:ident)?) => {
        impl<T> fmt::Debug for $ty<T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($ty))
                    .field("chan", &self.chan)
                    .finish()
            }
        }

        $(handle_traits!(@$clone $ty);)?
    };
    (@clone $ty:ident) => {
        impl<T> Clone for $ty<T> {
            fn clone(&self) -> Self {
                $ty {
                    chan: self.chan.clone(),
                }
            }
        }
    };
}
