package io.elasticgpu.controller.provisioning;

import java.util.Locale;

/** The deterministic name of the ElasticGPU for one container's share of one card. */
public final class ElasticGPUNames {

    /** Characters of the pod's uid kept in the name: enough to tell pods of one name apart over time. */
    static final int UID_PREFIX = 8;

    private static final int MAX = 253;

    private ElasticGPUNames() {}

    /**
     * {@code <node>-<card>-<pod uid prefix>-<container>}, lower-cased, every character a DNS subdomain may not hold
     * replaced by {@code -}, at most 253 characters, starting and ending with a letter or digit. E.g.
     * {@code gpu-a8-3-1f9c2e4b-train}.
     */
    public static String of(String node, int card, String podUid, String container) {
        String uid = podUid.length() > UID_PREFIX ? podUid.substring(0, UID_PREFIX) : podUid;
        String raw = (node + "-" + card + "-" + uid + "-" + container)
                .toLowerCase(Locale.ROOT)
                .replaceAll("[^a-z0-9.-]", "-")
                .replaceAll("\\.{2,}", ".");
        if (raw.length() > MAX) {
            raw = raw.substring(0, MAX);
        }
        return raw.replaceAll("^[^a-z0-9]+", "").replaceAll("[^a-z0-9]+$", "");
    }
}
