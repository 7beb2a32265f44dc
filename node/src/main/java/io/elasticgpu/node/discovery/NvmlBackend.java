package io.elasticgpu.node.discovery;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GPUs as the NVIDIA driver reports them, through NVML ({@link Nvml}). Opening initialises NVML and closing shuts it
 * down. Events are registered for every card at the first {@link #awaitEvents}; the wait happens in slices of at most
 * half a second, so {@link #close()} and interrupts take effect that soon even though a native wait cannot be
 * interrupted.
 */
public final class NvmlBackend implements GpuBackend {

    /** The Xid a lost card is reported as: "GPU has fallen off the bus". */
    static final long XID_FALLEN_OFF_THE_BUS = 79;

    private static final Logger LOG = LoggerFactory.getLogger(NvmlBackend.class);
    private static final long SLICE_MILLIS = 500;
    private static final Duration LONGEST_WAIT = Duration.ofDays(1);
    /** Events taken in one call after the first, so a storm of them cannot keep the caller from acting on any. */
    private static final int MAX_EVENTS = 64;

    private static final long MIB = 1L << 20;

    private final Nvml nvml;
    private final NvmlEvents events;
    private final NvmlMig mig;
    private final ReentrantLock waiting = new ReentrantLock(); // held across each native wait, and by close
    private volatile boolean closed;
    private MemorySegment eventSet; // guarded by waiting; created at the first wait
    private Map<Long, Integer> cardsByHandle = Map.of(); // guarded by waiting; nvmlDevice_t address -> index

    private NvmlBackend(Nvml nvml) {
        this.nvml = nvml;
        this.events = new NvmlEvents(nvml);
        this.mig = new NvmlMig(nvml);
        nvml.init();
        if (nvml.processLists().isEmpty()) {
            LOG.debug("the driver has neither nvmlDeviceGetComputeRunningProcesses_v3 nor _v2 (drivers before R455);"
                    + " no card will list processes");
        }
    }

    /**
     * NVML as the system loader finds it, else from the directories drivers install it in ({@link Nvml#DIRECTORIES}).
     *
     * @throws DiscoveryException when there is no NVML or it cannot be initialised, saying what to do
     */
    public static NvmlBackend open() {
        return new NvmlBackend(Nvml.load());
    }

    /** NVML from exactly {@code library}. */
    public static NvmlBackend open(Path library) {
        return new NvmlBackend(Nvml.load(library));
    }

    @Override
    public String name() {
        return "nvml";
    }

    @Override
    public boolean measuresUsage() {
        return true;
    }

    @Override
    public Hardware discover() {
        requireOpen();
        String driver = nvml.driverVersion();
        List<Nvml.Device> cards =
                IntStream.range(0, nvml.deviceCount()).mapToObj(nvml::device).toList();
        List<Nvml.Pci> slots = cards.stream().map(nvml::pci).toList();
        List<Gpu> gpus = new ArrayList<>();
        for (Nvml.Device d : cards) {
            String model = nvml.name(d);
            long memoryMib = nvml.memoryTotalBytes(d) / MIB;
            gpus.add(new Gpu(
                    d.index(),
                    nvml.uuid(d),
                    model,
                    memoryMib,
                    slots.get(d.index()).busId(),
                    nvml.minor(d),
                    nvml.numaNode(d),
                    mig.read(d, model, memoryMib)));
        }
        return new Hardware(driver, gpus, NvmlTopology.read(nvml, cards, slots));
    }

    @Override
    public List<GpuEvent> awaitEvents(Duration timeout) throws InterruptedException {
        requireOpen();
        long budget = (timeout.isNegative()
                        ? Duration.ZERO
                        : timeout.compareTo(LONGEST_WAIT) > 0 ? LONGEST_WAIT : timeout)
                .toNanos();
        long deadline = System.nanoTime() + budget;
        List<GpuEvent> found = new ArrayList<>();
        while (true) {
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while waiting for NVML events");
            }
            long left = TimeUnit.NANOSECONDS.toMillis(Math.max(0, deadline - System.nanoTime()));
            waiting.lock();
            try {
                if (closed) {
                    return found;
                }
                MemorySegment set = eventSet();
                NvmlEvents.Waited first = events.await(set, (int) Math.min(left, SLICE_MILLIS));
                for (NvmlEvents.Waited w = first;
                        !(w instanceof NvmlEvents.Waited.TimedOut) && found.size() < MAX_EVENTS;
                        w = events.await(set, 0)) {
                    collect(w, found);
                }
            } finally {
                waiting.unlock();
            }
            if (!found.isEmpty() || System.nanoTime() - deadline >= 0) {
                return found;
            }
        }
    }

    @Override
    public boolean answers(int card) {
        if (closed) {
            return false;
        }
        try {
            nvml.memoryTotalBytes(nvml.device(card));
            return true;
        } catch (DiscoveryException e) {
            LOG.debug("card {} does not answer: {}", card, e.getMessage());
            return false;
        }
    }

    @Override
    public List<GpuProcess> processes(int card) {
        requireOpen();
        Nvml.Device d = nvml.device(card);
        // An MPS client is in both lists, once with the memory it holds; a value NVML cannot give (-1) loses to one
        // it can.
        Map<Integer, Long> mibByPid = new TreeMap<>();
        Stream.concat(nvml.computeProcesses(d).stream(), nvml.mpsProcesses(d).stream())
                .forEach(p -> mibByPid.merge(p.pid(), mib(p.usedBytes()), Math::max));
        return mibByPid.entrySet().stream()
                .map(e -> new GpuProcess(e.getKey(), card, e.getValue()))
                .toList();
    }

    @Override
    public List<ProcessUtilization> utilization(int card, long sinceMicros) {
        requireOpen();
        if (sinceMicros < 0) {
            throw new IllegalArgumentException(("sinceMicros is %d; pass 0 for every sample NVML keeps, or the"
                            + " timestampMicros of a sample it returned")
                    .formatted(sinceMicros));
        }
        Map<Integer, ProcessUtilization> newest = new TreeMap<>();
        for (Nvml.Sample s : nvml.processUtilization(nvml.device(card), sinceMicros)) {
            if (s.timestampMicros() > sinceMicros) { // NVML filters too; a sample it let through would be seen twice
                newest.merge(
                        s.pid(),
                        new ProcessUtilization(s.pid(), card, s.smPercent(), s.memoryPercent(), s.timestampMicros()),
                        (a, b) -> b.timestampMicros() > a.timestampMicros() ? b : a);
            }
        }
        return List.copyOf(newest.values());
    }

    @Override
    public ComputeMode computeMode(int card) {
        requireOpen();
        return nvml.computeMode(nvml.device(card));
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        waiting.lock(); // waits out a native wait in progress, at most one slice
        try {
            if (eventSet != null) {
                events.free(eventSet);
                eventSet = null;
            }
        } finally {
            waiting.unlock();
            nvml.shutdown();
        }
    }

    private MemorySegment eventSet() {
        if (eventSet != null) {
            return eventSet;
        }
        MemorySegment set = events.createSet();
        Map<Long, Integer> byHandle = new HashMap<>();
        try {
            for (int i = 0, n = nvml.deviceCount(); i < n; i++) {
                Nvml.Device card = nvml.device(i);
                byHandle.put(card.handle().address(), i);
                register(card, set);
            }
        } catch (RuntimeException e) {
            events.free(set);
            throw e;
        }
        cardsByHandle = Map.copyOf(byHandle);
        eventSet = set;
        return set;
    }

    private void register(Nvml.Device card, MemorySegment set) {
        if (events.register(card, NvmlEvents.XID | NvmlEvents.DOUBLE_BIT_ECC, set)) {
            return;
        }
        // Boards without ECC refuse the pair as a whole (NOT_SUPPORTED); Xid alone still reports a lost card.
        if (events.register(card, NvmlEvents.XID, set)) {
            LOG.info(
                    "card {}: NVML reports no double-bit ECC events for it (NOT_SUPPORTED); watching Xid only",
                    card.index());
            return;
        }
        LOG.warn(
                "card {}: NVML reports no events for it (NOT_SUPPORTED); its health rests on queries alone",
                card.index());
    }

    private void collect(NvmlEvents.Waited waited, List<GpuEvent> found) {
        switch (waited) {
            case NvmlEvents.Waited.Event e -> {
                Integer card = cardsByHandle.get(e.device());
                if (card == null) {
                    LOG.warn("NVML event of type {} for a device that is not one of the cards; ignored", e.type());
                } else if (e.type() == NvmlEvents.XID) {
                    found.add(new GpuEvent.Xid(card, e.data()));
                } else if (e.type() == NvmlEvents.DOUBLE_BIT_ECC) {
                    found.add(new GpuEvent.DoubleBitEcc(card));
                } else {
                    LOG.debug("card {}: NVML event of type {} ignored", card, e.type());
                }
            }
            case NvmlEvents.Waited.Lost lost -> {
                Integer card = cardsByHandle.get(lost.device());
                if (card == null) {
                    throw new DiscoveryException(lost.message());
                }
                found.add(new GpuEvent.Xid(card, XID_FALLEN_OFF_THE_BUS));
            }
            case NvmlEvents.Waited.TimedOut t -> {}
        }
    }

    /**
     * Bytes in whole MiB, rounded up so that a process never looks smaller than it is; -1 for NVML_VALUE_NOT_AVAILABLE,
     * and for any value with the top bit set, which no card's memory reaches.
     */
    static long mib(long usedBytes) {
        return usedBytes < 0 ? -1 : Math.ceilDiv(usedBytes, MIB);
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("the nvml backend is closed");
        }
    }
}
