package io.elasticgpu.simulator.replay;

/**
 * What happened at each event of one replay, all in milli-cards: the GPU asked so far (the current pod included,
 * failed pods included), the GPU held after the event, the cluster's fragmentation after it, and whether the pod
 * failed. Immutable once built.
 */
public final class EventLog {

    private final long capacityMilli;
    private final long[] arrived;
    private final long[] used;
    private final double[] fragmentation;
    private final boolean[] failed;
    private final String[] nodes;
    private int size;

    EventLog(long capacityMilli, int expectedEvents) {
        this.capacityMilli = capacityMilli;
        this.arrived = new long[expectedEvents];
        this.used = new long[expectedEvents];
        this.fragmentation = new double[expectedEvents];
        this.failed = new boolean[expectedEvents];
        this.nodes = new String[expectedEvents];
    }

    void add(long arrivedMilli, long usedMilli, double fragmentationMilli, String node) {
        arrived[size] = arrivedMilli;
        used[size] = usedMilli;
        fragmentation[size] = fragmentationMilli;
        failed[size] = node == null;
        nodes[size] = node;
        size++;
    }

    public long capacityMilli() {
        return capacityMilli;
    }

    public int size() {
        return size;
    }

    public long arrived(int event) {
        return arrived[check(event)];
    }

    public long used(int event) {
        return used[check(event)];
    }

    public double fragmentation(int event) {
        return fragmentation[check(event)];
    }

    public boolean failed(int event) {
        return failed[check(event)];
    }

    /** The node the pod went to, or empty when it failed. */
    public java.util.Optional<String> node(int event) {
        return java.util.Optional.ofNullable(nodes[check(event)]);
    }

    public long failures() {
        long n = 0;
        for (int i = 0; i < size; i++) {
            if (failed[i]) {
                n++;
            }
        }
        return n;
    }

    private int check(int event) {
        if (event < 0 || event >= size) {
            throw new IndexOutOfBoundsException("event %d of %d".formatted(event, size));
        }
        return event;
    }

    @Override
    public String toString() {
        return "EventLog[%d events, %d failed]".formatted(size, failures());
    }
}
