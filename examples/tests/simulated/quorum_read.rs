use crate::planted_bug;
use crate::sim::quorum_read;

planted_bug! {
    quorum_read;
    a_read_that_does_not_write_back_is_found_going_back_in_time: quorum_read::PROPERTY;
    with_write_back_every_explored_history_is_linearizable: 1_000;
}
