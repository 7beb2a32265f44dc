package io.elasticgpu.node.discovery;

/** Something the driver reported about one card. A closed set; {@code health} decides what each means. */
public sealed interface GpuEvent {

    /** The card it concerns. */
    int card();

    /** An Xid error with its code, e.g. 79 "GPU has fallen off the bus", 13 "graphics engine exception". */
    record Xid(int card, long code) implements GpuEvent {}

    /** An uncorrectable (double-bit) ECC memory error. */
    record DoubleBitEcc(int card) implements GpuEvent {}
}
