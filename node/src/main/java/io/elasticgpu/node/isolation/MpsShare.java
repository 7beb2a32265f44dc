package io.elasticgpu.node.isolation;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.api.v1alpha1.MpsLimits;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * One share that the agent holds to its limits with MPS. Immutable.
 *
 * @param key    the share's name, and its directory's under the MPS root ({@code dp-…} for a device-plugin grant,
 *               {@code dra-…} for a prepared claim's request)
 * @param cards  the uuids of its cards, in the order its containers see them (device 0 first)
 * @param limits what each of its processes may use
 * @param holder who holds it, for logs, events and metrics (a container {@code namespace/pod/container}, or a claim)
 * @param held   what says, after a restart of the agent, that the share is still held: the resource and the smallest
 *               device id kubelet recorded for it, or the claim's uid
 * @param shmMib the size of the share's {@code /dev/shm} tmpfs in MiB; 0 when its pod brings a {@code /dev/shm} of its
 *               own
 */
public record MpsShare(String key, List<String> cards, MpsLimits limits, String holder, String held, long shmMib) {

    private static final Pattern KEY = Pattern.compile("[a-z0-9][a-z0-9-]{0,120}");

    public MpsShare {
        requireNonNull(key, "key");
        if (!KEY.matcher(key).matches()) {
            throw new IllegalArgumentException(
                    "MPS share key must be lower-case letters, digits and '-', was \"%s\"".formatted(key));
        }
        cards = List.copyOf(cards);
        requireNonNull(limits, "limits");
        requireNonNull(holder, "holder");
        requireNonNull(held, "held");
        if (cards.size() != limits.memoryMib().size()) {
            throw new IllegalArgumentException("MPS share %s: %d cards but memory limits for %d"
                    .formatted(key, cards.size(), limits.memoryMib().size()));
        }
        if (shmMib < 0) {
            throw new IllegalArgumentException("MPS share %s: /dev/shm of %d MiB".formatted(key, shmMib));
        }
    }

    /**
     * The daemon's environment that makes the limits its defaults from its first instant: MPS reads both variables in
     * the control daemon's environment as the defaults of every server it starts. Devices are numbered as the daemon
     * sees them, its {@code CUDA_VISIBLE_DEVICES} order.
     */
    public Map<String, String> daemonEnvironment() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", Integer.toString(limits.threadPercent()));
        env.put(
                "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT",
                IntStream.range(0, cards.size())
                        .mapToObj(i -> i + "=" + limits.memoryMib().get(i) + "M")
                        .collect(Collectors.joining(",")));
        return env;
    }

    /**
     * The same limits as a client's own environment, its cards named by uuid (an entry naming a card the process does
     * not see would make MPS drop every memory limit of the process): what the per-card layout tells a container,
     * which the container can lower or, by changing it, escape.
     */
    public Map<String, String> clientEnvironment() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", Integer.toString(limits.threadPercent()));
        env.put(
                "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT",
                IntStream.range(0, cards.size())
                        .mapToObj(i -> cards.get(i) + "=" + limits.memoryMib().get(i) + "M")
                        .collect(Collectors.joining(",")));
        return env;
    }

    /** The commands that set the limits on the daemon's side, as its defaults for the servers it starts. */
    public List<String> limitCommands() {
        List<String> out = new ArrayList<>();
        out.add("set_default_active_thread_percentage " + limits.threadPercent());
        for (int i = 0; i < cards.size(); i++) {
            out.add("set_default_device_pinned_mem_limit %d %dM"
                    .formatted(i, limits.memoryMib().get(i)));
        }
        return out;
    }
}
