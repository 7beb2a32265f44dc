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
import java.util.concurrent.TimeUnit;

/**
 * The stand-in {@code libnvidia-ml.so.1} of {@code src/test/c/nvml_stub.c}: compiled with gcc into
 * {@code target/nvml-stub/} once per JVM, then configured and driven through its {@code nvmlStub*} functions. The
 * binding under test loads the same file, so both see the same library state; tests using it must not run in
 * parallel.
 */
@SuppressWarnings("restricted") // it loads and calls a C library; surefire passes --enable-native-access
final class NvmlStub {

    private static Path library;
    private static MethodHandle configure, emit, emitError, initCount, eventSets;

    private NvmlStub() {
    }

    /** The compiled library, built at the first call in this JVM. */
    static synchronized Path library() {
        if (library == null) {
            library = compile();
            SymbolLookup stub = SymbolLookup.libraryLookup(library, Arena.global());
            Linker linker = Linker.nativeLinker();
            configure = linker.downcallHandle(stub.findOrThrow("nvmlStubConfigure"),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS));
            emit = linker.downcallHandle(stub.findOrThrow("nvmlStubEmit"),
                    FunctionDescriptor.ofVoid(JAVA_INT, JAVA_LONG, JAVA_LONG));
            emitError = linker.downcallHandle(stub.findOrThrow("nvmlStubEmitError"),
                    FunctionDescriptor.ofVoid(JAVA_INT, JAVA_INT));
            initCount = linker.downcallHandle(stub.findOrThrow("nvmlStubInitCount"), FunctionDescriptor.of(JAVA_INT));
            eventSets = linker.downcallHandle(stub.findOrThrow("nvmlStubEventSets"), FunctionDescriptor.of(JAVA_INT));
        }
        return library;
    }

    /** Replaces the stub's node with {@code config} (see the directives at the top of nvml_stub.c). */
    static void configure(String config) {
        library();
        try (Arena arena = Arena.ofConfined()) {
            Path file = Files.createTempFile("nvml-stub", ".conf");
            Files.writeString(file, config);
            int bad = (int) configure.invokeExact(arena.allocateFrom(file.toString()));
            Files.delete(file);
            if (bad != 0) {
                throw new IllegalArgumentException("nvml stub: line %d of the configuration is not understood: %s"
                        .formatted(bad, bad > 0 ? config.lines().skip(bad - 1).findFirst().orElse("") : "(unreadable)"));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Throwable e) {
            throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
        }
    }

    /** Queues an event that nvmlEventSetWait_v2 returns (if the card registered {@code type}). */
    static void emit(int card, long type, long data) {
        invoke(() -> {
            emit.invokeExact(card, type, data); // a statement, so the call site is void like the C function
        });
    }

    /** The next nvmlEventSetWait_v2 returns {@code rc}, naming the device of {@code card} (none for -1). */
    static void emitError(int card, int rc) {
        invoke(() -> {
            emitError.invokeExact(card, rc);
        });
    }

    /** nvmlInit_v2 calls not yet matched by nvmlShutdown. */
    static int initCount() {
        library();
        try {
            return (int) initCount.invokeExact();
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** Event sets created and not yet freed. */
    static int eventSets() {
        library();
        try {
            return (int) eventSets.invokeExact();
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    private interface Call {
        void run() throws Throwable;
    }

    private static void invoke(Call call) {
        library();
        try {
            call.run();
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    private static Path compile() {
        Path module = Path.of(System.getProperty("basedir", ".")).toAbsolutePath(); // surefire sets basedir
        Path source = module.resolve("src/test/c/nvml_stub.c");
        Path directory = module.resolve("target/nvml-stub");
        Path built = directory.resolve("libnvidia-ml.so.1");
        Path partial = directory.resolve("libnvidia-ml.so.1." + ProcessHandle.current().pid());
        try {
            Files.createDirectories(directory);
            Process gcc;
            try {
                gcc = new ProcessBuilder("gcc", "-shared", "-fPIC", "-O1", "-Wall", "-Wextra", "-Werror", "-pthread",
                        "-o", partial.toString(), source.toString()).redirectErrorStream(true).start();
            } catch (IOException e) {
                throw new IllegalStateException(("the NVML tests build a stand-in libnvidia-ml.so.1 from %s with gcc,"
                        + " and there is no gcc on the PATH; install it (e.g. apt-get install gcc)").formatted(source), e);
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
