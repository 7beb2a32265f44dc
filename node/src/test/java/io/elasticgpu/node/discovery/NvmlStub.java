package io.elasticgpu.node.discovery;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The stand-in {@code libnvidia-ml.so.1} of {@code src/test/c/nvml_stub.c}: compiled with gcc into
 * {@code target/nvml-stub/} once per JVM, then configured and driven through its {@code nvmlStub*} functions. The
 * binding under test loads the same file, so both see the same library state; tests using it must not run in
 * parallel. Public for the tests of other packages that open an {@link NvmlBackend} on it, e.g.
 * {@code NvmlBackend.open(NvmlStub.library())} after {@code NvmlStub.configure(...)}.
 */
@SuppressWarnings("restricted") // it loads and calls a C library; surefire passes --enable-native-access
public final class NvmlStub {

    /** Which NVML functions a build of the stub has; each build is its own library with its own state. */
    public enum Build {
        /** Every function the binding calls: a current driver. */
        CURRENT,
        /** Without nvmlDeviceGet(MPS)ComputeRunningProcesses_v3, as drivers before R510 (NVML 11.6). */
        WITHOUT_V3_PROCESS_LISTS("-DNVML_STUB_WITHOUT_V3"),
        /** Without the _v3 and _v2 process lists, as drivers before R455 (NVML 11.1). */
        WITHOUT_PROCESS_LISTS("-DNVML_STUB_WITHOUT_V3", "-DNVML_STUB_WITHOUT_V2");

        private final List<String> macros;

        Build(String... macros) {
            this.macros = List.of(macros);
        }
    }

    private record Loaded(
            Path file,
            MethodHandle configure,
            MethodHandle update,
            MethodHandle emit,
            MethodHandle emitError,
            MethodHandle initCount,
            MethodHandle eventSets) {}

    private static final Map<Build, Loaded> LOADED = new EnumMap<>(Build.class);
    private static final String SOURCE = "src/test/c/nvml_stub.c";

    private NvmlStub() {}

    /** The compiled library, built at the first call in this JVM. */
    public static Path library() {
        return library(Build.CURRENT);
    }

    /** The compiled library of {@code build}, built at the first call for it in this JVM. */
    public static Path library(Build build) {
        return loaded(build).file();
    }

    /**
     * Replaces the stub's node with {@code config} (see the directives at the top of nvml_stub.c), NVML's init count
     * and queued events included: call it before opening an {@link NvmlBackend}.
     */
    public static void configure(String config) {
        configure(Build.CURRENT, config);
    }

    /** {@link #configure(String)} for the library of {@code build}. */
    public static void configure(Build build, String config) {
        read(loaded(build).configure(), config);
    }

    /**
     * Replaces the processes, utilization samples, compute modes, spawn counts and failures with those
     * {@code config} lists ({@code process}, {@code util}, {@code computemode}, {@code spawn} and {@code fail} lines;
     * card lines are refused), while an {@link NvmlBackend} stays open: processes starting and ending.
     */
    public static void update(String config) {
        read(loaded(Build.CURRENT).update(), config);
    }

    /** Queues an event that nvmlEventSetWait_v2 returns (if the card registered {@code type}). */
    public static void emit(int card, long type, long data) {
        MethodHandle emit = loaded(Build.CURRENT).emit();
        invoke(() -> {
            emit.invokeExact(card, type, data); // a statement, so the call site is void like the C function
        });
    }

    /** The next nvmlEventSetWait_v2 returns {@code rc}, naming the device of {@code card} (none for -1). */
    public static void emitError(int card, int rc) {
        MethodHandle emitError = loaded(Build.CURRENT).emitError();
        invoke(() -> {
            emitError.invokeExact(card, rc);
        });
    }

    /** nvmlInit_v2 calls not yet matched by nvmlShutdown. */
    public static int initCount() {
        try {
            return (int) loaded(Build.CURRENT).initCount().invokeExact();
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** Event sets created and not yet freed. */
    public static int eventSets() {
        try {
            return (int) loaded(Build.CURRENT).eventSets().invokeExact();
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    private static synchronized Loaded loaded(Build build) {
        Loaded loaded = LOADED.get(build);
        if (loaded == null) {
            Path file = compile(build);
            SymbolLookup stub = SymbolLookup.libraryLookup(file, Arena.global());
            Linker linker = Linker.nativeLinker();
            FunctionDescriptor readsFile = FunctionDescriptor.of(JAVA_INT, ADDRESS);
            loaded = new Loaded(
                    file,
                    linker.downcallHandle(stub.findOrThrow("nvmlStubConfigure"), readsFile),
                    linker.downcallHandle(stub.findOrThrow("nvmlStubUpdate"), readsFile),
                    linker.downcallHandle(
                            stub.findOrThrow("nvmlStubEmit"),
                            FunctionDescriptor.ofVoid(JAVA_INT, JAVA_LONG, JAVA_LONG)),
                    linker.downcallHandle(
                            stub.findOrThrow("nvmlStubEmitError"), FunctionDescriptor.ofVoid(JAVA_INT, JAVA_INT)),
                    linker.downcallHandle(stub.findOrThrow("nvmlStubInitCount"), FunctionDescriptor.of(JAVA_INT)),
                    linker.downcallHandle(stub.findOrThrow("nvmlStubEventSets"), FunctionDescriptor.of(JAVA_INT)));
            LOADED.put(build, loaded);
        }
        return loaded;
    }

    /** Hands {@code config} to nvmlStubConfigure or nvmlStubUpdate, through a file as they take one. */
    private static void read(MethodHandle function, String config) {
        try (Arena arena = Arena.ofConfined()) {
            Path file = Files.createTempFile("nvml-stub", ".conf");
            Files.writeString(file, config);
            int bad = (int) function.invokeExact(arena.allocateFrom(file.toString()));
            Files.delete(file);
            if (bad != 0) {
                throw new IllegalArgumentException("nvml stub: line %d of the configuration is not understood: %s"
                        .formatted(
                                bad,
                                bad > 0
                                        ? config.lines()
                                                .skip(bad - 1)
                                                .findFirst()
                                                .orElse("")
                                        : "(unreadable)"));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Throwable e) {
            throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
        }
    }

    private interface Call {
        void run() throws Throwable;
    }

    private static void invoke(Call call) {
        try {
            call.run();
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Builds the stand-in ({@link Build#CURRENT}) into {@code directory} as {@code libnvidia-ml.so.1}, not loading it
     * into this JVM: for a program started apart that loads it by path (a node agent's {@code --nvml-library}, the GPU
     * check's rehearsal), configured through {@code NVML_STUB_CONFIG}. Tests of other modules may call it: the source
     * is found beside them, in the node module.
     */
    public static Path buildInto(Path directory) {
        return compile(Build.CURRENT, directory);
    }

    private static Path compile(Build build) {
        Path module = Path.of(System.getProperty("basedir", ".")).toAbsolutePath(); // surefire sets basedir
        // Each build in a directory of its own under the library's real name, which is what Nvml.load looks for.
        return compile(
                build,
                module.resolve(
                        build == Build.CURRENT
                                ? "target/nvml-stub"
                                : "target/nvml-stub/"
                                        + build.name().toLowerCase(Locale.ROOT).replace('_', '-')));
    }

    /** The node module's {@code src/test/c/nvml_stub.c}: this module's, or its sibling's for another module's tests. */
    private static Path source() {
        Path module = Path.of(System.getProperty("basedir", ".")).toAbsolutePath();
        Path here = module.resolve(SOURCE);
        return Files.isRegularFile(here) ? here : module.resolveSibling("node").resolve(SOURCE);
    }

    private static Path compile(Build build, Path directory) {
        Path source = source();
        Path built = directory.resolve("libnvidia-ml.so.1");
        Path partial =
                directory.resolve("libnvidia-ml.so.1." + ProcessHandle.current().pid());
        try {
            Files.createDirectories(directory);
            List<String> command = new ArrayList<>(
                    List.of("gcc", "-shared", "-fPIC", "-O1", "-Wall", "-Wextra", "-Werror", "-pthread"));
            command.addAll(build.macros);
            command.addAll(List.of("-o", partial.toString(), source.toString()));
            Process gcc;
            try {
                gcc = new ProcessBuilder(command).redirectErrorStream(true).start();
            } catch (IOException e) {
                throw new IllegalStateException(
                        ("the NVML tests build a stand-in libnvidia-ml.so.1 from %s with gcc,"
                                        + " and there is no gcc on the PATH; install it (e.g. apt-get install gcc)")
                                .formatted(source),
                        e);
            }
            String output = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!gcc.waitFor(2, TimeUnit.MINUTES) || gcc.exitValue() != 0) {
                throw new IllegalStateException("gcc could not build %s:%n%s".formatted(source, output));
            }
            // A new file rather than one overwritten in place: a library another JVM has mapped must not change.
            return Files.move(partial, built, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while building " + built, e);
        }
    }
}
