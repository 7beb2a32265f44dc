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

    record DoesNotFit(Reason reason, String message) implements Fit {
        public DoesNotFit {
            requireNonNull(reason, "reason");
            requireNonNull(message, "message");
            if (reason == Reason.FITS) {
                throw new IllegalArgumentException("DoesNotFit cannot carry Reason.FITS");
            }
        }
    }
}
