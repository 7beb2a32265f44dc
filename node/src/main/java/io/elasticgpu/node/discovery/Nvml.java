package io.elasticgpu.node.discovery;

import static io.elasticgpu.node.discovery.NvmlError.FUNCTION_NOT_FOUND;
import static io.elasticgpu.node.discovery.NvmlError.INVALID_ARGUMENT;
import static io.elasticgpu.node.discovery.NvmlError.NOT_FOUND;
import static io.elasticgpu.node.discovery.NvmlError.NOT_SUPPORTED;
import static io.elasticgpu.node.discovery.NvmlError.SUCCESS;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The raw binding to {@code libnvidia-ml.so.1}: it finds and loads the library, and has one downcall per NVML query
 * the node agent makes, with the real names and signatures of {@code nvml.h} (including the versioned names its
 * macros pick, e.g. {@code nvmlInit_v2}); events are in {@link NvmlEvents}. Out-parameters live in a confined arena
 * per call, so the binding is as safe from several threads as NVML itself. A failed call throws
 * {@link DiscoveryException}; codes that only mean "this card cannot say" become plain values where a method says so.
 * It is over 400 lines because it holds one downcall per NVML function the agent uses, each beside its layout; split,
 * the library handle and the per-call arena rule would be spread over several files.
 */
@SuppressWarnings("restricted") // binding native code is this class's job; the agent runs with --enable-native-access
final class Nvml {

    static final String LIBRARY = "libnvidia-ml.so.1";
    /** Where distributions, the GPU operator's driver container and the NVIDIA container toolkit put it. */
    static final List<Path> DIRECTORIES = List.of(
            Path.of("/usr/lib/x86_64-linux-gnu"),
            Path.of("/usr/lib64"),
            Path.of("/usr/local/nvidia/lib64"),
            Path.of("/run/nvidia/driver/usr/lib/x86_64-linux-gnu"));
    /** NVML_NVLINK_DEVICE_TYPE_SWITCH from nvmlDeviceGetNvLinkRemoteDeviceType. */
    private static final int REMOTE_SWITCH = 2;
    /** NVML_ERROR_INSUFFICIENT_SIZE: an array query needs more room; only the array queries here meet it. */
    static final int INSUFFICIENT_SIZE = 7;
    /**
     * Room for processes in the first call of a process list: an MPS server takes at most 48 clients per card, so one
     * call lists any card but one with unusually many plain CUDA processes.
     */
    static final int FIRST_PROCESS_ROOM = 64;
    /** Calls of one array query before giving up on a list that keeps growing; each doubles what was asked for. */
    static final int ARRAY_TRIES = 4;
    /** More entries than any card has processes or samples: a count beyond it is not believed. */
    static final int MOST_ENTRIES = 1 << 16;

    /** A card as the driver hands it out, with its index for messages. */
    record Device(int index, MemorySegment handle) {
        String subject() {
            return "for card " + index;
        }
    }

    /** Where a card (or an NVSwitch) sits on the PCI bus. */
    record Pci(int domain, int bus, int device, String busId) {
        /**
         * Domain, bus and device as one canonical text. Links are matched on it rather than on {@code busId}:
         * drivers have formatted the domain of a link's far end with 4 hex digits as well as with 8.
         */
        String slot() {
            return "%x:%x:%x".formatted(domain, bus, device);
        }
    }

    /** One active NVLink of a card and its far end, an NVSwitch or another card. */
    record NvLink(int link, boolean toSwitch, Pci remote) {}

    /** An entry of a process list: {@code usedBytes} as NVML gives it, unsigned; -1 is NVML_VALUE_NOT_AVAILABLE. */
    record Process(int pid, long usedBytes) {}

    /** The parts of an {@code nvmlProcessUtilizationSample_t} the agent uses. */
    record Sample(int pid, long timestampMicros, int smPercent, int memoryPercent) {}

    private final SymbolLookup library;
    private final String source;
    private final MethodHandle errorString;
    private final NvmlCall init,
            shutdown,
            driverVersion,
            count,
            handleByIndex,
            uuid,
            name,
            memoryInfo,
            pciInfo,
            minor,
            commonAncestor,
            nvLinkState,
            nvLinkRemotePci;
    private final Optional<NvmlCall> numaNode, nvLinkRemoteType; // newer than the rest: -1 and "a GPU" without them
    private final NvmlCall processUtilization, computeMode;
    private final Optional<NvmlCall> computeProcesses, mpsProcesses; // _v3 (R510), else _v2 (R455), else none

    private Nvml(SymbolLookup library, String source) {
        this.library = library;
        this.source = source;
        this.errorString = Linker.nativeLinker().downcallHandle(symbol("nvmlErrorString"), NvmlLayouts.ERROR_STRING);
        init = bind("nvmlInit_v2");
        shutdown = bind("nvmlShutdown");
        driverVersion = bind("nvmlSystemGetDriverVersion", ADDRESS, JAVA_INT);
        count = bind("nvmlDeviceGetCount_v2", ADDRESS);
        handleByIndex = bind("nvmlDeviceGetHandleByIndex_v2", JAVA_INT, ADDRESS);
        uuid = bind("nvmlDeviceGetUUID", ADDRESS, ADDRESS, JAVA_INT);
        name = bind("nvmlDeviceGetName", ADDRESS, ADDRESS, JAVA_INT);
        memoryInfo = bind("nvmlDeviceGetMemoryInfo", ADDRESS, ADDRESS);
        pciInfo = bind("nvmlDeviceGetPciInfo_v3", ADDRESS, ADDRESS);
        minor = bind("nvmlDeviceGetMinorNumber", ADDRESS, ADDRESS);
        commonAncestor = bind("nvmlDeviceGetTopologyCommonAncestor", ADDRESS, ADDRESS, ADDRESS);
        nvLinkState = bind("nvmlDeviceGetNvLinkState", ADDRESS, JAVA_INT, ADDRESS);
        nvLinkRemotePci = bind("nvmlDeviceGetNvLinkRemotePciInfo_v2", ADDRESS, JAVA_INT, ADDRESS);
        numaNode = bindIfPresent("nvmlDeviceGetNumaNodeId", ADDRESS, ADDRESS);
        nvLinkRemoteType = bindIfPresent("nvmlDeviceGetNvLinkRemoteDeviceType", ADDRESS, JAVA_INT, ADDRESS);
        processUtilization = bind("nvmlDeviceGetProcessUtilization", ADDRESS, ADDRESS, ADDRESS, JAVA_LONG);
        computeMode = bind("nvmlDeviceGetComputeMode", ADDRESS, ADDRESS);
        // _v2 fills nvmlProcessInfo_v2_t, whose fields are those of _v3's nvmlProcessInfo_t (NvmlLayouts.PROCESS_INFO);
        // the unversioned functions fill the 16-byte nvmlProcessInfo_v1_t, without the MIG ids, and are not bound.
        computeProcesses = bindIfPresent("nvmlDeviceGetComputeRunningProcesses_v3", ADDRESS, ADDRESS, ADDRESS)
                .or(() -> bindIfPresent("nvmlDeviceGetComputeRunningProcesses_v2", ADDRESS, ADDRESS, ADDRESS));
        mpsProcesses = bindIfPresent("nvmlDeviceGetMPSComputeRunningProcesses_v3", ADDRESS, ADDRESS, ADDRESS)
                .or(() -> bindIfPresent("nvmlDeviceGetMPSComputeRunningProcesses_v2", ADDRESS, ADDRESS, ADDRESS));
    }

    /** The library the system loader finds by name, else the first of {@link #DIRECTORIES} that has it. */
    static Nvml load() {
        return load(DIRECTORIES, true);
    }

    /** Exactly {@code library}, e.g. from a flag. */
    static Nvml load(Path library) {
        if (!Files.isRegularFile(library)) {
            throw notFound(library.toString());
        }
        return new Nvml(open(library), library.toString());
    }

    static Nvml load(List<Path> directories, boolean systemLoader) {
        if (systemLoader) {
            try {
                return new Nvml(SymbolLookup.libraryLookup(LIBRARY, Arena.global()), LIBRARY);
            } catch (IllegalArgumentException notOnThePath) {
                // the directories below are the usual places outside ld.so's path
            }
        }
        for (Path directory : directories) {
            Path file = directory.resolve(LIBRARY);
            if (Files.isRegularFile(file)) {
                return new Nvml(open(file), file.toString());
            }
        }
        String searched = directories.stream().map(Path::toString).collect(Collectors.joining(", "));
        throw notFound(systemLoader ? "the system library path, " + searched : searched);
    }

    private static SymbolLookup open(Path file) {
        try {
            return SymbolLookup.libraryLookup(file, Arena.global()); // global: NVML stays loaded for the JVM's life
        } catch (IllegalArgumentException e) {
            throw new DiscoveryException(
                    "%s exists but cannot be loaded (%s); it must be the 64-bit NVML of the"
                                    .formatted(file, e.getMessage())
                            + " installed NVIDIA driver",
                    e);
        }
    }

    private static DiscoveryException notFound(String searched) {
        return new DiscoveryException(("NVML (%s) not found in %s; on a GPU node install the NVIDIA driver or mount it"
                        + " into the agent (the NVIDIA container toolkit does this), or run with --backend simulated")
                .formatted(LIBRARY, searched));
    }

    void init() {
        init.check(init.invoke(), "");
    }

    void shutdown() {
        shutdown.check(shutdown.invoke(), "");
    }

    String driverVersion() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment text = arena.allocate(NvmlLayouts.DRIVER_VERSION_SIZE);
            driverVersion.check(driverVersion.invoke(text, NvmlLayouts.DRIVER_VERSION_SIZE), "");
            return text.getString(0);
        }
    }

    int deviceCount() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            count.check(count.invoke(out), "");
            return out.get(JAVA_INT, 0);
        }
    }

    Device device(int index) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            handleByIndex.check(handleByIndex.invoke(index, out), "for card " + index);
            return new Device(index, out.get(ADDRESS, 0));
        }
    }

    String uuid(Device d) {
        return text(uuid, d, NvmlLayouts.UUID_SIZE);
    }

    String name(Device d) {
        return text(name, d, NvmlLayouts.NAME_SIZE);
    }

    long memoryTotalBytes(Device d) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment memory = arena.allocate(NvmlLayouts.MEMORY);
            memoryInfo.check(memoryInfo.invoke(d.handle(), memory), d.subject());
            return memory.get(JAVA_LONG, NvmlLayouts.MEMORY_TOTAL);
        }
    }

    Pci pci(Device d) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment info = arena.allocate(NvmlLayouts.PCI_INFO);
            pciInfo.check(pciInfo.invoke(d.handle(), info), d.subject());
            return pci(info);
        }
    }

    int minor(Device d) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            minor.check(minor.invoke(d.handle(), out), d.subject());
            return out.get(JAVA_INT, 0);
        }
    }

    /** -1 when the driver has no such function or does not know (NOT_SUPPORTED, FUNCTION_NOT_FOUND). */
    int numaNode(Device d) {
        if (numaNode.isEmpty()) {
            return -1;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            int rc = numaNode.get().invoke(d.handle(), out);
            if (rc == NOT_SUPPORTED || rc == FUNCTION_NOT_FOUND) {
                return -1;
            }
            numaNode.get().check(rc, d.subject());
            return out.get(JAVA_INT, 0);
        }
    }

    /** The nvmlGpuTopologyLevel_t of the closest common ancestor; empty when the platform hides it (NOT_SUPPORTED). */
    OptionalInt commonAncestor(Device a, Device b) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            int rc = commonAncestor.invoke(a.handle(), b.handle(), out);
            if (rc == NOT_SUPPORTED) {
                return OptionalInt.empty();
            }
            commonAncestor.check(rc, "for cards %d and %d".formatted(a.index(), b.index()));
            return OptionalInt.of(out.get(JAVA_INT, 0));
        }
    }

    /**
     * The active links among 0, 1, … 17; the scan ends where the driver says there are no more links
     * (INVALID_ARGUMENT) or none at all (NOT_SUPPORTED).
     */
    List<NvLink> activeNvLinks(Device d) {
        List<NvLink> links = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(JAVA_INT);
            MemorySegment remote = arena.allocate(NvmlLayouts.PCI_INFO);
            MemorySegment type = arena.allocate(JAVA_INT);
            for (int link = 0; link < NvmlLayouts.NVLINK_MAX_LINKS; link++) {
                int rc = nvLinkState.invoke(d.handle(), link, state);
                if (rc == NOT_SUPPORTED || rc == INVALID_ARGUMENT) {
                    break;
                }
                String subject = "for card %d link %d".formatted(d.index(), link);
                nvLinkState.check(rc, subject);
                if (state.get(JAVA_INT, 0) != 1) { // NVML_FEATURE_ENABLED
                    continue;
                }
                nvLinkRemotePci.check(nvLinkRemotePci.invoke(d.handle(), link, remote), subject);
                boolean toSwitch = nvLinkRemoteType.isPresent()
                        && nvLinkRemoteType.get().invoke(d.handle(), link, type) == SUCCESS
                        && type.get(JAVA_INT, 0) == REMOTE_SWITCH;
                links.add(new NvLink(link, toSwitch, pci(remote)));
            }
        }
        return links;
    }

    /** The names of the process lists this driver has, e.g. {@code nvmlDeviceGetComputeRunningProcesses_v3}. */
    List<String> processLists() {
        return Stream.of(computeProcesses, mpsProcesses)
                .flatMap(Optional::stream)
                .map(NvmlCall::name)
                .toList();
    }

    /** The processes with a compute context on the card; none when the driver lacks the list or the card cannot say. */
    List<Process> computeProcesses(Device d) {
        return processes(computeProcesses, d);
    }

    /** The MPS clients on the card (they are in {@link #computeProcesses} too); none as there. */
    List<Process> mpsProcesses(Device d) {
        return processes(mpsProcesses, d);
    }

    /**
     * The samples newer than {@code lastSeenMicros} in NVML's history of the card, several per process possibly;
     * none when there are none (NOT_FOUND) or the card cannot say (NOT_SUPPORTED, e.g. with MIG on).
     */
    List<Sample> processUtilization(Device d, long lastSeenMicros) {
        try (Arena arena = Arena.ofConfined()) {
            // the first call has no buffer: it only asks how many samples there are
            return array(
                            arena,
                            processUtilization,
                            d,
                            NvmlLayouts.PROCESS_UTILIZATION_SAMPLE,
                            0,
                            Set.of(NOT_FOUND, NOT_SUPPORTED),
                            (count, buffer) -> processUtilization.invoke(d.handle(), buffer, count, lastSeenMicros))
                    .stream()
                    .map(s -> new Sample(
                            s.get(JAVA_INT, NvmlLayouts.SAMPLE_PID),
                            s.get(JAVA_LONG, NvmlLayouts.SAMPLE_TIMESTAMP),
                            s.get(JAVA_INT, NvmlLayouts.SAMPLE_SM),
                            s.get(JAVA_INT, NvmlLayouts.SAMPLE_MEMORY)))
                    .toList();
        }
    }

    ComputeMode computeMode(Device d) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            computeMode.check(computeMode.invoke(d.handle(), out), d.subject());
            int mode = out.get(JAVA_INT, 0);
            ComputeMode[] known = ComputeMode.values();
            if (mode < 0 || mode >= known.length) {
                throw new DiscoveryException(("%s %s returned compute mode %d, which is none of nvml.h's 0 DEFAULT,"
                                + " 1 EXCLUSIVE_THREAD, 2 PROHIBITED, 3 EXCLUSIVE_PROCESS; the driver is newer than "
                                + "this agent:"
                                + " update Elastic GPU, or set a known mode with nvidia-smi -i %d -c DEFAULT")
                        .formatted(computeMode.name(), d.subject(), mode, d.index()));
            }
            return known[mode];
        }
    }

    /** Binds {@code function}, which returns nvmlReturn_t and takes {@code arguments}; for {@link NvmlEvents} too. */
    NvmlCall bind(String function, MemoryLayout... arguments) {
        return new NvmlCall(
                function,
                Linker.nativeLinker().downcallHandle(symbol(function), NvmlLayouts.returningCode(arguments)),
                this::errorString);
    }

    Optional<NvmlCall> bindIfPresent(String function, MemoryLayout... arguments) {
        return library.find(function).map(s -> bind(function, arguments));
    }

    private List<Process> processes(Optional<NvmlCall> function, Device d) {
        if (function.isEmpty()) {
            return List.of();
        }
        NvmlCall list = function.get();
        try (Arena arena = Arena.ofConfined()) {
            return array(
                            arena,
                            list,
                            d,
                            NvmlLayouts.PROCESS_INFO,
                            FIRST_PROCESS_ROOM,
                            Set.of(NOT_SUPPORTED),
                            (count, buffer) -> list.invoke(d.handle(), count, buffer))
                    .stream()
                    .map(p -> new Process(
                            p.get(JAVA_INT, NvmlLayouts.PROCESS_PID),
                            p.get(JAVA_LONG, NvmlLayouts.PROCESS_USED_MEMORY)))
                    .toList();
        }
    }

    /** One call of an array query: {@code count} holds the room in {@code buffer} (NULL for none). */
    private interface ArrayCall {
        int invoke(MemorySegment count, MemorySegment buffer);
    }

    /**
     * The entries an NVML array query writes, as slices of a buffer in {@code arena}. Such a query takes the room of
     * its buffer in {@code *count} and answers with how many entries it wrote, or with INSUFFICIENT_SIZE and how many
     * it needs. Processes can start between two calls, so the next call asks for twice that, up to
     * {@value #ARRAY_TRIES} calls in all.
     *
     * @param room the entries the first call has room for; 0 asks only for the count
     * @param none the codes that mean "nothing to list" for this query
     */
    private static List<MemorySegment> array(
            Arena arena, NvmlCall function, Device d, MemoryLayout entry, int room, Set<Integer> none, ArrayCall call) {
        MemorySegment count = arena.allocate(JAVA_INT);
        for (int attempt = 1; ; attempt++) {
            MemorySegment buffer = room == 0 ? MemorySegment.NULL : arena.allocate(entry, room);
            count.set(JAVA_INT, 0, room);
            int rc = call.invoke(count, buffer);
            long written = Integer.toUnsignedLong(count.get(JAVA_INT, 0));
            if (none.contains(rc)) {
                return List.of();
            }
            // SUCCESS with more entries than there was room for is a count only, as some drivers answer a NULL buffer
            if (rc == SUCCESS && written <= room) {
                return written == 0
                        ? List.of()
                        : buffer.elements(entry).limit(written).toList();
            }
            if (rc != SUCCESS && rc != INSUFFICIENT_SIZE) {
                throw function.failure(rc, d.subject());
            }
            if (written > MOST_ENTRIES) {
                throw new DiscoveryException(("%s %s asked for room for %d entries, more than the %d a card can"
                                + " have; the driver is confused: check nvidia-smi and dmesg")
                        .formatted(function.name(), d.subject(), written, MOST_ENTRIES));
            }
            if (attempt == ARRAY_TRIES) {
                throw new DiscoveryException(("%s %s asked for more room %d times in a row, last for %d entries; the"
                                + " list grows faster than it can be read: ask again")
                        .formatted(function.name(), d.subject(), attempt, written));
            }
            room = (int) Math.max(written, room + 1L) * 2;
        }
    }

    private String text(NvmlCall function, Device d, int size) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment text = arena.allocate(size);
            function.check(function.invoke(d.handle(), text, size), d.subject());
            return text.getString(0);
        }
    }

    private static Pci pci(MemorySegment info) {
        return new Pci(
                info.get(JAVA_INT, NvmlLayouts.PCI_DOMAIN),
                info.get(JAVA_INT, NvmlLayouts.PCI_BUS),
                info.get(JAVA_INT, NvmlLayouts.PCI_DEVICE),
                info.getString(NvmlLayouts.PCI_BUS_ID));
    }

    private String errorString(int rc) {
        try {
            MemorySegment text = (MemorySegment) errorString.invokeExact(rc);
            // A static NUL-terminated string of NVML's; the bound only has to cover it.
            return text.equals(MemorySegment.NULL) ? "" : text.reinterpret(1024).getString(0);
        } catch (Throwable e) {
            throw new DiscoveryException("nvmlErrorString(%d) failed: %s".formatted(rc, e), e);
        }
    }

    private MemorySegment symbol(String function) {
        return library.find(function)
                .orElseThrow(() -> new DiscoveryException(
                        "%s has no function %s; the NVIDIA driver is too old for Elastic GPU, install a current one"
                                .formatted(source, function)));
    }
}
