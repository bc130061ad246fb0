use crate::planted_bug;
use crate::sim::counter;

planted_bug! {
    counter;
    // The story names the duplicate.
    a_duplicated_request_counts_twice_and_is_found: "the total",
        story: |l| l.contains("duplicate ") && l.contains("\"ADD ");
    without_the_bug_duplicates_change_nothing: 300;
}
