package io.elasticgpu.localcluster.realnode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The device nodes an NVIDIA driver makes, for simulated cards: {@code /dev/nvidia<minor>} (character device 195,
 * minor), {@code /dev/nvidiactl} (195, 255) and the unified memory devices. A DRA claim's CDI spec names them and the
 * runtime refuses a spec whose device node is not on the host; opening one fails (no driver), which no test does.
 * Only nodes that are not there are made, and only those are removed again, so a machine with real cards keeps its own.
 */
final class CardDeviceNodes {

    static final int NVIDIA_MAJOR = 195;
    /** nvidia-uvm's major is dynamic on a real machine; one far from the kernel's fixed ones stands in. */
    static final int UVM_MAJOR = 510;

    private final List<Path> made = new ArrayList<>();

    /** Makes the device nodes of cards {@code 0..cards-1} and the driver's control devices, where missing. */
    synchronized void ensure(int cards) {
        Map<String, int[]> nodes = new LinkedHashMap<>();
        for (int minor = 0; minor < cards; minor++) {
            nodes.put("/dev/nvidia" + minor, new int[] {NVIDIA_MAJOR, minor});
        }
        nodes.put("/dev/nvidiactl", new int[] {NVIDIA_MAJOR, 255});
        nodes.put("/dev/nvidia-uvm", new int[] {UVM_MAJOR, 0});
        nodes.put("/dev/nvidia-uvm-tools", new int[] {UVM_MAJOR, 1});
        nodes.forEach((path, numbers) -> {
            Path p = Path.of(path);
            if (Files.exists(p)) {
                return;
            }
            HostCommand.run(
                            List.of(
                                    "mknod",
                                    "-m",
                                    "666",
                                    path,
                                    "c",
                                    Integer.toString(numbers[0]),
                                    Integer.toString(numbers[1])),
                            Duration.ofSeconds(10))
                    .orThrow();
            made.add(p);
        });
    }

    /** Removes the nodes this made; returns those it could not. */
    synchronized List<String> remove() {
        List<String> left = new ArrayList<>();
        for (Path p : made) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException e) {
                left.add(p + ": " + e.getMessage());
            }
        }
        made.clear();
        return left;
    }
}
