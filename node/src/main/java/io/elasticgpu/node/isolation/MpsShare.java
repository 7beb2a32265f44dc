package io.elasticgpu.node.isolation;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.api.v1alpha1.MpsLimits;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * One share that the agent holds to its limits with an MPS control daemon of its own. Immutable.
 *
 * @param key    the share's name, and its directory's under the MPS root ({@code dp-…} for a device-plugin grant,
 *               {@code dra-…} for a prepared claim's request)
 * @param cards  the uuids of its cards, in the order its containers see them (device 0 first)
 * @param limits what each of its processes may use
 * @param holder who holds it, for logs, events and metrics (a container {@code namespace/pod/container}, or a claim)
 * @param held   what says, after a restart of the agent, that the share is still held: the resource and the smallest
 *               device id kubelet recorded for it, or the claim's uid
 */
public record MpsShare(String key, List<String> cards, MpsLimits limits, String holder, String held) {

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
    }

    /**
     * The daemon's environment that makes the limits its defaults from its first instant: MPS reads both variables in
     * the control daemon's environment as the defaults of every server it starts. Devices are numbered as the daemon
     * sees them, its {@code CUDA_VISIBLE_DEVICES} order.
     */
    public Map<String, String> daemonEnvironment() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", Integer.toString(limits.threadPercent()));
        List<String> memory = java.util.stream.IntStream.range(0, cards.size())
                .filter(i -> limits.memoryMib().get(i) > 0)
                .mapToObj(i -> i + "=" + limits.memoryMib().get(i) + "M")
                .toList();
        if (!memory.isEmpty()) {
            env.put("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", String.join(",", memory));
        }
        return env;
    }

    /** The commands that set the limits on the daemon's side, as its defaults for the servers it starts. */
    public List<String> limitCommands() {
        List<String> out = new java.util.ArrayList<>();
        out.add("set_default_active_thread_percentage " + limits.threadPercent());
        for (int i = 0; i < cards.size(); i++) {
            if (limits.memoryMib().get(i) == 0) {
                continue;
            }
            out.add("set_default_device_pinned_mem_limit %d %dM"
                    .formatted(i, limits.memoryMib().get(i)));
        }
        return out;
    }
}
