use crate::planted_bug;
use crate::sim::lease;

planted_bug! {
    lease;
    // The fault injector cut a client off from the server.
    two_holders_at_once_under_a_partition_are_found: lease::PROPERTY,
        story: |l| l.contains("partition") && l.contains("leases");
    without_the_bug_a_holder_stops_before_the_server_moves_on: 1_000;
}
