package io.elasticgpu.core.snapshot;

import static java.util.Objects.requireNonNull;

/** The outcome of checking one request against one node, with a message a person can act on when it fails. */
public sealed interface Fit {

    Reason reason();

    record Fits() implements Fit {
        @Override
        public Reason reason() {
            return Reason.FITS;
        }
    }

    /**
     * @param node   the node that was checked
     * @param detail what is missing, without the node's name, e.g. {@code no card has 700 milli free; ...}
     */
    record DoesNotFit(Reason reason, String node, String detail) implements Fit {
        public DoesNotFit {
            requireNonNull(reason, "reason");
            requireNonNull(node, "node");
            requireNonNull(detail, "detail");
            if (reason == Reason.FITS) {
                throw new IllegalArgumentException("DoesNotFit cannot carry Reason.FITS");
            }
        }

        /** {@code node <name>: <detail>}. */
        public String message() {
            return "node " + node + ": " + detail;
        }
    }
}
