#!/bin/sh
# Aryl elastic GPU scheduler: NodeManager node-attribute script for the GPU type.
#
# PER NODE (the same file on every GPU NodeManager): asks nvidia-smi for the node's GPU product name and reports it
# as the YARN node attribute gpu-type, which the NodeManager sends to the ResourceManager as nm.yarn.io/gpu-type and
# Aryl reads (aryl.scheduler.gpu-type.attribute, default gpu-type). The GPU count comes from the NodeManager's GPU
# plugin, which runs the same nvidia-smi: count and type come from one place.
#
# In the NodeManager's yarn-site.xml:
#   yarn.nodemanager.node-attributes.provider                      script
#   yarn.nodemanager.node-attributes.provider.script.path          /etc/hadoop/conf/gpu-type-attribute.sh
#   yarn.nodemanager.node-attributes.provider.script.opts          (optional) the nvidia-smi to run, e.g.
#                                                                  /usr/bin/nvidia-smi; default: nvidia-smi on PATH
#   yarn.nodemanager.node-attributes.provider.fetch-interval-ms    how often it runs (default 600000); it also runs
#                                                                  once when the NodeManager starts
#
# Output, one line: NODE_ATTRIBUTE:gpu-type,STRING,<type>. The types must be the names the ResourceManager declares in
# aryl.scheduler.gpu-types: edit the case below to match them. A product the case does not know is reported by its
# name, lower-cased, so that Aryl's status and log name it (as a type it does not declare) rather than guess.
# A node whose GPUs are not all the same product gets no gpu-type; if nvidia-smi fails, the script fails and the
# NodeManager keeps the attribute it last reported (and logs the failure).
NVIDIA_SMI=${1:-nvidia-smi}

names=$("$NVIDIA_SMI" --query-gpu=name --format=csv,noheader) || {
  echo "gpu-type-attribute: $NVIDIA_SMI --query-gpu=name failed" >&2
  exit 1
}
products=$(printf '%s\n' "$names" | sed 's/^ *//;s/ *$//' | grep -v '^$' | sort -u)
if [ -z "$products" ]; then
  echo "gpu-type-attribute: $NVIDIA_SMI lists no GPU" >&2
  exit 0
fi
if [ "$(printf '%s\n' "$products" | wc -l)" -ne 1 ]; then
  echo "gpu-type-attribute: GPUs of more than one product, no gpu-type:" $products >&2
  exit 0
fi

case "$products" in
  *A100*) type=a100 ;;
  *H100*) type=h100 ;;
  *H200*) type=h200 ;;
  *A10G*) type=a10g ;;
  *A10*) type=a10 ;;
  *L40S*) type=l40s ;;
  *L40*) type=l40 ;;
  *L4*) type=l4 ;;
  *V100*) type=v100 ;;
  *T4*) type=t4 ;;
  *)
    # e.g. "NVIDIA RTX A6000" -> nvidia-rtx-a6000 (YARN attribute values: letters, digits, '-', '_', '.')
    type=$(printf '%s' "$products" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9_.-]\{1,\}/-/g;s/^-*//;s/-*$//')
    ;;
esac
[ -n "$type" ] || exit 0
echo "NODE_ATTRIBUTE:gpu-type,STRING,$type"
