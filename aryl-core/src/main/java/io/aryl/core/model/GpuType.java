package io.aryl.core.model;

/**
 * A class of GPU, such as an A100-class training GPU or a T4-class inference GPU.
 *
 * @param name the type's name, as jobs name it in their allowed types
 * @param trainingSpeed how fast training runs on one GPU of this type relative to the reference
 *     training GPU (1.0); inference-class GPUs are usually slower
 */
public record GpuType(String name, double trainingSpeed) implements Comparable<GpuType> {
  public GpuType {
    Checks.notBlank("gpuType.name", name);
    Checks.positive("gpuType(" + name + ").trainingSpeed", trainingSpeed);
  }

  /** A type at reference training speed. */
  public static GpuType of(String name) {
    return new GpuType(name, 1.0);
  }

  public static GpuType of(String name, double trainingSpeed) {
    return new GpuType(name, trainingSpeed);
  }

  /** Faster types first, then by name: the order placement tries types in. */
  @Override
  public int compareTo(GpuType o) {
    int bySpeed = Double.compare(o.trainingSpeed, trainingSpeed);
    return bySpeed != 0 ? bySpeed : name.compareTo(o.name);
  }

  @Override
  public String toString() {
    return name;
  }
}
