package io.elasticgpu.api.v1alpha1;

/** Annotation keys Elastic GPU reads and writes. */
public final class Annotations {

    /**
     * On a node: its cards, their health and the links between them, as {@link NodeInventory} JSON. Written by the
     * node agent (and by the e2e harness for fake nodes); read by the scheduler extender and the controller.
     */
    public static final String INVENTORY = "elasticgpu.io/inventory";

    private Annotations() {
    }
}
