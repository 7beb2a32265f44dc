package io.elasticgpu.controller.view;

import java.util.List;

/**
 * One card and who holds it. Granted figures count every holder in the cluster, also those a namespace scope hides;
 * {@code holders} lists only those the scope shows, sorted by namespace, pod and container.
 */
public record CardView(int index, String uuid, String model, boolean healthy, long memoryGrantedMib, long memoryTotalMib,
                       int computeGrantedPercent, int computeTotalPercent, List<Holder> holders) {

    public CardView {
        holders = List.copyOf(holders);
    }
}
