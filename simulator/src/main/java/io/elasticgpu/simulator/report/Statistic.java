package io.elasticgpu.simulator.report;

import java.util.Arrays;

/** Mean and sample standard deviation (n - 1) of some values; NaN values are left out. */
public record Statistic(double mean, double sd, int n) {

    public static Statistic of(double... values) {
        double[] v = Arrays.stream(values).filter(x -> !Double.isNaN(x)).toArray();
        if (v.length == 0) {
            return new Statistic(Double.NaN, Double.NaN, 0);
        }
        double mean = Arrays.stream(v).sum() / v.length;
        double squares = Arrays.stream(v).map(x -> (x - mean) * (x - mean)).sum();
        double sd = v.length < 2 ? 0 : Math.sqrt(squares / (v.length - 1));
        return new Statistic(mean, sd, v.length);
    }
}
