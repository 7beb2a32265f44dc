package io.elasticgpu.controller.provisioning;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What to change so that the managed ElasticGPUs are the desired ones: create the missing, update the ones that
 * differ (spec, labels or phase), delete the ones nobody wants (orphans). Pure; names sorted.
 */
public record GpuPlan(List<DesiredGpu> create, List<DesiredGpu> update, List<String> delete) {

    public GpuPlan {
        create = List.copyOf(create);
        update = List.copyOf(update);
        delete = List.copyOf(delete);
    }

    /**
     * @param desired by name
     * @param actual  the managed ElasticGPUs that exist, read back with {@link DesiredGpu#from}, by name
     */
    public static GpuPlan between(Map<String, DesiredGpu> desired, Map<String, DesiredGpu> actual) {
        List<DesiredGpu> create = new ArrayList<>();
        List<DesiredGpu> update = new ArrayList<>();
        List<String> delete = new ArrayList<>();
        desired.values().stream()
                .sorted(java.util.Comparator.comparing(DesiredGpu::name))
                .forEach(want -> {
                    DesiredGpu have = actual.get(want.name());
                    if (have == null) {
                        create.add(want);
                    } else if (!have.equals(want)) {
                        update.add(want);
                    }
                });
        actual.keySet().stream()
                .filter(name -> !desired.containsKey(name))
                .sorted()
                .forEach(delete::add);
        return new GpuPlan(create, update, delete);
    }

    public boolean isEmpty() {
        return create.isEmpty() && update.isEmpty() && delete.isEmpty();
    }
}
