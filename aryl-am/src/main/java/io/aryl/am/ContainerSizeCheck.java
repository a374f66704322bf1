package io.aryl.am;

/**
 * A worker container must fit the largest container the ResourceManager allocates ({@code
 * yarn.io/gpu} of its maximum allocation); the scheduler would reject a larger one at submission.
 */
final class ContainerSizeCheck {
  private ContainerSizeCheck() {}

  /**
   * @param maxContainerGpus GPUs of the ResourceManager's maximum allocation; negative when the
   *     client does not know the GPU resource type (no resource-types.xml), and nothing is checked
   * @throws IllegalArgumentException naming {@code --gpus}, the value and the limit
   */
  static void check(int gpus, long maxContainerGpus) {
    if (maxContainerGpus >= 0 && gpus > maxContainerGpus) {
      throw new IllegalArgumentException(
          "--gpus "
              + gpus
              + " is more than the largest container holds ("
              + maxContainerGpus
              + " GPUs, the ResourceManager's maximum allocation of yarn.io/gpu)");
    }
  }
}
