package io.elasticgpu.controller.view;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * One card and who holds it. Granted figures count every holder in the cluster, also those a namespace scope hides;
 * {@code holders} lists only those the scope shows, sorted by namespace, pod and container.
 *
 * @param reason        why an unhealthy card is out of service, as its node agent says; null when healthy or unsaid
 * @param memoryUsedMib what processes hold on the card as the node agent last measured it: every container's, also
 *                      those a scope hides, and processes of no known pod; -1 when unknown (the node publishes no
 *                      readable {@code elasticgpu.io/usage})
 * @param usageMeasured when it was measured (ISO-8601, UTC); null when unknown
 * @param freeTflops    the TFLOPS its compute not held gives ({@link FreeTflops}), or why there is no figure
 */
public record CardView(
        int index,
        String uuid,
        String model,
        boolean healthy,
        @JsonInclude(JsonInclude.Include.NON_NULL) String reason,
        long memoryGrantedMib,
        long memoryUsedMib,
        long memoryTotalMib,
        int computeGrantedPercent,
        int computeTotalPercent,
        String usageMeasured,
        FreeTflops freeTflops,
        List<Holder> holders) {

    public CardView {
        holders = List.copyOf(holders);
    }

    /** Whether the node agent's measurement of this card is known. */
    public boolean usageKnown() {
        return memoryUsedMib >= 0;
    }
}
