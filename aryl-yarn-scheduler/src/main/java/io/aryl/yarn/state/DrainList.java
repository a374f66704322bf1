package io.aryl.yarn.state;

import java.util.List;

/**
 * @param containers every container asked to stop and not yet gone
 */
public record DrainList(List<DrainRecord> containers) {
  public DrainList {
    containers = List.copyOf(containers);
  }
}
