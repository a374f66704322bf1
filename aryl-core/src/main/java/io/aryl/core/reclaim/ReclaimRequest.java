package io.aryl.core.reclaim;

import io.aryl.core.model.Checks;

/**
 * "Return {@code servers} loaned servers to inference now", optionally only servers of one GPU
 * type.
 *
 * @param servers how many, > 0
 * @param gpuType the type they must have, or null for any
 */
public record ReclaimRequest(int servers, String gpuType) {
  public ReclaimRequest {
    Checks.positive("reclaim.servers", servers);
    if (gpuType != null) {
      Checks.notBlank("reclaim.gpuType", gpuType);
    }
  }

  public static ReclaimRequest any(int servers) {
    return new ReclaimRequest(servers, null);
  }

  public static ReclaimRequest ofType(int servers, String gpuType) {
    return new ReclaimRequest(servers, gpuType);
  }
}
