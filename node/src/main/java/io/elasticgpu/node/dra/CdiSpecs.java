package io.elasticgpu.node.dra;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.elasticgpu.node.deviceplugin.ContainerEnvironment;
import io.elasticgpu.node.deviceplugin.ContainerEnvironment.Variables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * CDI (Container Device Interface) spec files, one per prepared claim, in the directory the container runtime reads
 * ({@code /var/run/cdi}). A spec has one CDI device per request of the claim, named {@code <claim uid>-<request>},
 * carrying that request's cards (device nodes) and environment; kubelet hands each container the ids of the
 * requests it references, and the runtime applies the edits.
 *
 * <p>{@code cdiVersion} is 0.5.0: the oldest version that allows device names beginning with a digit (claim UIDs
 * may), so runtimes with older CDI libraries still read our specs; nothing else we write needs a later one.
 */
public final class CdiSpecs {

    public static final String VERSION = "0.5.0";
    public static final String KIND = "elasticgpu.io/gpu";
    /** The driver's control devices, which every CUDA process opens besides its cards. */
    static final List<String> CONTROL_DEVICES = List.of("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools");
    // Sorted keys: the same spec is the same text in every run, so an unchanged spec is never rewritten.
    private static final ObjectMapper JSON =
            new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

    private final Path dir;

    public CdiSpecs(Path dir) {
        this.dir = dir;
    }

    /**
     * The CDI device name of {@code request} in the claim {@code uid}: CDI names allow no {@code /}, DNS labels no
     * {@code _}. */
    public static String deviceName(String uid, String request) {
        return uid + "-" + request.replace('/', '_');
    }

    public static String qualified(String name) {
        return KIND + "=" + name;
    }

    public Path file(String uid) {
        return dir.resolve("elasticgpu.io-gpu_" + uid + ".json");
    }

    /** The spec text for the devices named (CDI device name → its cards' device nodes and the container variables). */
    public static String spec(Map<String, Edits> devices) {
        List<Map<String, Object>> out = new ArrayList<>();
        devices.forEach((name, edits) -> out.add(Map.of("name", name, "containerEdits", edits.json())));
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("cdiVersion", VERSION);
        spec.put("kind", KIND);
        spec.put("devices", out);
        spec.put(
                "containerEdits",
                Map.of(
                        "deviceNodes",
                        CONTROL_DEVICES.stream().map(p -> Map.of("path", p)).toList()));
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(spec);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Writes the claim's spec unless the same text is there; atomically, so the runtime never reads half a spec. */
    public void write(String uid, String spec) {
        Path f = file(uid);
        try {
            if (Files.exists(f) && Files.readString(f).equals(spec)) {
                return;
            }
            Files.createDirectories(dir);
            Path tmp = dir.resolve("." + f.getFileName() + ".tmp");
            Files.writeString(tmp, spec);
            Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot write CDI spec %s: %s; check that the CDI directory is writable"
                            .formatted(f, e.getMessage()),
                    e);
        }
    }

    public void remove(String uid) {
        try {
            Files.deleteIfExists(file(uid));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete CDI spec %s: %s".formatted(file(uid), e.getMessage()), e);
        }
    }

    /**
     * What one CDI device does to a container: its cards' device nodes, variables and mounts, and its cards ({@code
     * devices}, UUIDs) as the NVIDIA container toolkit's volume-mount device list ({@link
     * ContainerEnvironment#deviceList}), as the device plugin gives them.
     */
    public record Edits(List<String> deviceNodes, Variables variables, List<String> devices) {
        public Edits {
            deviceNodes = List.copyOf(deviceNodes);
            devices = List.copyOf(devices);
        }

        Map<String, Object> json() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put(
                    "env",
                    variables.env().entrySet().stream()
                            .map(e -> e.getKey() + "=" + e.getValue())
                            .toList());
            m.put(
                    "deviceNodes",
                    deviceNodes.stream().map(p -> Map.of("path", p)).toList());
            List<Map<String, Object>> mounts = new ArrayList<>();
            variables
                    .mounts()
                    .forEach((host, container) -> mounts.add(Map.of(
                            "hostPath",
                            host,
                            "containerPath",
                            container,
                            "options",
                            List.of("rbind", "rw", "nosuid", "nodev"))));
            ContainerEnvironment.deviceList(devices)
                    .forEach(d -> mounts.add(Map.of(
                            "hostPath",
                            d.getHostPath(),
                            "containerPath",
                            d.getContainerPath(),
                            "options",
                            List.of("bind", "ro", "nosuid", "nodev"))));
            if (!mounts.isEmpty()) {
                m.put("mounts", mounts);
            }
            return m;
        }
    }
}
