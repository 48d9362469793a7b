// One GPU per rank: the choice by slot, the names the GPU-numbering layer writes, the loader environment,
// and adapter selection against fake adapter sources (identical GPUs, a GPU that cannot be had, no layer).
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/core/errors.js';
import {
  adapterFlagFor, chooseGpuIndex, GPU_INDEX_LAYER_NAME, parseGpuPosition, selectAdapter, stripGpuPosition,
  withGpuIndexLayer, type AdapterSource,
} from '../../src/mgemm/kernels/webgpu/runtime/gpuSelection.js';

describe('chooseGpuIndex', () => {
  it('gives the ranks of a host its GPUs in turn', () => {
    expect([0, 1, 2, 3, 4].map((slot) => chooseGpuIndex(slot, 2))).toEqual([0, 1, 0, 1, 0]);
    expect([0, 1, 2, 3].map((slot) => chooseGpuIndex(slot, 4))).toEqual([0, 1, 2, 3]);
    expect(chooseGpuIndex(7, 1)).toBe(0);
  });

  it('rejects slots and counts that are not counts', () => {
    expect(() => chooseGpuIndex(-1, 2)).toThrow('GPU slot must be an integer ≥ 0');
    expect(() => chooseGpuIndex(0.5, 2)).toThrow('GPU slot');
    expect(() => chooseGpuIndex(0, 0)).toThrow('GPU count must be an integer ≥ 1');
  });
});

describe('GPU names written by the layer', () => {
  it('reads the position from Dawn’s normalized device name', () => {
    // "NVIDIA H200 [gpu 1 of 2]" and "llvmpipe (LLVM 15.0.6, 256 bits) [gpu 0 of 1]" as Dawn normalizes them.
    expect(parseGpuPosition('nvidia-h200-gpu-1-of-2-')).toEqual({ index: 1, count: 2 });
    expect(parseGpuPosition('llvmpipe-llvm-15-0-6-256-bits-gpu-0-of-1-')).toEqual({ index: 0, count: 1 });
    expect(parseGpuPosition('nvidia-h200-gpu-11-of-16')).toEqual({ index: 11, count: 16 });
  });

  it('finds none without the layer, or in a name that only looks alike', () => {
    expect(parseGpuPosition('nvidia-h200')).toBeNull();
    expect(parseGpuPosition('llvmpipe-llvm-15-0-6-256-bits-')).toBeNull();
    expect(parseGpuPosition('nvidia-h200-gpu-2-of-2-')).toBeNull();
    expect(parseGpuPosition('supergpu-0-of-1')).toBeNull();
  });

  it('strips the position for reports', () => {
    expect(stripGpuPosition('nvidia-h200-gpu-1-of-2-')).toBe('nvidia-h200');
    expect(stripGpuPosition('nvidia-h200')).toBe('nvidia-h200');
  });

  it('names one GPU in Dawn’s adapter flag, as a substring of the raw name', () => {
    const flag = adapterFlagFor({ index: 1, count: 2 });
    expect(flag).toBe('adapter=[gpu 1 of 2]');
    const value = flag.slice('adapter='.length);
    expect('NVIDIA H200 [gpu 1 of 2]'.includes(value)).toBe(true);
    expect('NVIDIA H200 [gpu 1 of 20]'.includes(value)).toBe(false);
    expect('NVIDIA H200 [gpu 11 of 2]'.includes(value)).toBe(false);
  });
});

describe('withGpuIndexLayer', () => {
  it('adds the layer and its folder once, after what the user enabled', () => {
    expect(withGpuIndexLayer({}, '/opt/snptally/build/vulkan')).toEqual({
      VK_LAYER_PATH: '/opt/snptally/build/vulkan', VK_INSTANCE_LAYERS: GPU_INDEX_LAYER_NAME,
    });
    const once = withGpuIndexLayer({ VK_LAYER_PATH: '/usr/share/layers', VK_INSTANCE_LAYERS: 'VK_LAYER_KHRONOS_validation' }, '/b');
    expect(once).toEqual({ VK_LAYER_PATH: '/usr/share/layers:/b', VK_INSTANCE_LAYERS: `VK_LAYER_KHRONOS_validation:${GPU_INDEX_LAYER_NAME}` });
    expect(withGpuIndexLayer(once, '/b')).toEqual(once);
  });
});

/** A host of identical GPUs as Dawn shows them with the layer (or without it, `numbered: false`). */
function fakeHost(numGpus: number, options: { numbered?: boolean; missing?: number[] } = {}): AdapterSource<string> & { asked: string[] } {
  const name = (index: number): string => (options.numbered === false ? 'nvidia-h200' : `nvidia-h200-gpu-${index}-of-${numGpus}-`);
  const asked: string[] = [];
  return {
    asked,
    first: async () => (numGpus === 0 ? null : name(0)),
    matching: async (flag) => {
      asked.push(flag);
      for (let index = 0; index < numGpus; index++) {
        if (flag === adapterFlagFor({ index, count: numGpus })) {
          if (options.missing?.includes(index)) throw new Error(`no suitable backends found\nAvailable adapters: …`);
          return name(index);
        }
      }
      return null;
    },
    deviceName: (adapter) => adapter,
  };
}

describe('selectAdapter', () => {
  it('puts each slot on its own GPU of identical ones, modulo their number', async () => {
    const host = fakeHost(2);
    const chosen = await Promise.all([0, 1, 2, 3].map((slot) => selectAdapter(host, slot)));
    expect(chosen.map((c) => c?.position)).toEqual([
      { index: 0, count: 2 }, { index: 1, count: 2 }, { index: 0, count: 2 }, { index: 1, count: 2 },
    ]);
    expect(chosen.map((c) => c?.adapter)).toEqual(['nvidia-h200-gpu-0-of-2-', 'nvidia-h200-gpu-1-of-2-', 'nvidia-h200-gpu-0-of-2-', 'nvidia-h200-gpu-1-of-2-']);
    // GPU 0 is the first adapter: only GPU 1 is asked for by name.
    expect(host.asked).toEqual(['adapter=[gpu 1 of 2]', 'adapter=[gpu 1 of 2]']);
  });

  it('takes the first adapter without a slot, and null without any', async () => {
    expect(await selectAdapter(fakeHost(4), undefined)).toEqual({ adapter: 'nvidia-h200-gpu-0-of-4-', position: { index: 0, count: 4 } });
    expect(await selectAdapter(fakeHost(0), 3)).toBeNull();
  });

  it('without the layer every slot gets the first adapter, position unknown', async () => {
    const host = fakeHost(2, { numbered: false });
    expect(await selectAdapter(host, 1)).toEqual({ adapter: 'nvidia-h200', position: null });
    expect(host.asked).toEqual([]);
  });

  it('fails with the slot and the GPU when that GPU cannot be had', async () => {
    const failure = selectAdapter(fakeHost(4, { missing: [2] }), 6);
    await expect(failure).rejects.toBeInstanceOf(UserError);
    await expect(failure).rejects.toThrow('GPU 2 of 4 (for GPU slot 6) is not available: no suitable backends found');
  });

  it('fails when Dawn answers with another adapter than the one named', async () => {
    const host: AdapterSource<string> = { ...fakeHost(2), matching: async () => 'nvidia-h200-gpu-0-of-2-' };
    await expect(selectAdapter(host, 1)).rejects.toThrow('GPU 1 of 2 (for GPU slot 1): asked for it, got adapter "nvidia-h200-gpu-0-of-2-"');
  });
});
