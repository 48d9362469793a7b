/* episdet-to-bed: a tensor-episdet / Epi4Tensor case-control dataset (descriptor .txt and its two .bin files, the
 * format of ../shared/peers/epistasis-gpu/README.md) as a PLINK .bed/.bim/.fam, so that snptally and the peers read
 * the same genotypes in one benchmark (tools/bench-epistasis-gpu.sh).
 *   episdet-to-bed DESCRIPTOR.txt OUT_PREFIX
 * .bin: per SNP, row g = 0 then row g = 1, W = ceil(n/1024)*1024/32 little-endian u32 words; sample s at bit 31 - s%32
 * of word s/32; g = 2 where neither bit is set. .fam: controls (phenotype 1), then cases (2). .bed: g 0/1/2 as codes
 * 11/10/00 (allele-1 count g, the .bim's first allele being allele 1). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fail(const char *what, const char *name) {
  fprintf(stderr, "episdet-to-bed: %s: %s\n", name, what);
  exit(1);
}

static FILE *open_or_fail(const char *name, const char *mode) {
  FILE *f = fopen(name, mode);
  if (f == NULL) fail("cannot open", name);
  return f;
}

int main(int argc, char **argv) {
  if (argc != 3) { fprintf(stderr, "usage: episdet-to-bed DESCRIPTOR.txt OUT_PREFIX\n"); return 2; }
  const char *descriptor = argv[1], *prefix = argv[2];
  FILE *d = open_or_fail(descriptor, "r");
  char names[2][4096];
  long num_snp, n[2];
  /* Descriptor lines: #SNPs, controls file, #controls, cases file, #cases. */
  if (fscanf(d, "%ld %4095s %ld %4095s %ld", &num_snp, names[0], &n[0], names[1], &n[1]) != 5 || num_snp <= 0 || n[0] < 0 || n[1] < 0)
    fail("not a descriptor (#SNPs, controls file, #controls, cases file, #cases)", descriptor);
  fclose(d);
  /* .bin names are relative to the descriptor's directory. */
  char dir[4096] = ".";
  const char *slash = strrchr(descriptor, '/');
  if (slash != NULL) snprintf(dir, sizeof dir, "%.*s", (int)(slash - descriptor), descriptor);
  FILE *bins[2];
  size_t words[2];
  uint32_t *rows[2];
  for (int c = 0; c < 2; c++) {
    char path[8300];
    snprintf(path, sizeof path, "%s/%s", dir, names[c]);
    bins[c] = open_or_fail(path, "rb");
    words[c] = (size_t)((n[c] + 1023) / 1024) * 1024 / 32;
    rows[c] = malloc(2 * words[c] * sizeof(uint32_t) + 4);
    if (rows[c] == NULL) fail("out of memory", path);
  }
  long num_sample = n[0] + n[1];
  size_t bytes_per_snp = (size_t)(num_sample + 3) / 4;
  uint8_t *out = malloc(bytes_per_snp);
  char path[4200];
  snprintf(path, sizeof path, "%s.fam", prefix);
  FILE *fam = open_or_fail(path, "w");
  for (long s = 0; s < num_sample; s++) fprintf(fam, "S%ld S%ld 0 0 0 %d\n", s, s, s < n[0] ? 1 : 2);
  if (fclose(fam) != 0) fail("write failed", path);
  snprintf(path, sizeof path, "%s.bim", prefix);
  FILE *bim = open_or_fail(path, "w");
  for (long j = 0; j < num_snp; j++) fprintf(bim, "1 snp%ld 0 %ld A G\n", j, 1000 * (j + 1));
  if (fclose(bim) != 0) fail("write failed", path);
  snprintf(path, sizeof path, "%s.bed", prefix);
  FILE *bed = open_or_fail(path, "wb");
  const uint8_t magic[3] = {0x6c, 0x1b, 0x01};
  fwrite(magic, 1, 3, bed);
  static const uint8_t code_of_g[3] = {3, 2, 0};
  for (long j = 0; j < num_snp; j++) {
    memset(out, 0, bytes_per_snp);
    long s_out = 0;
    for (int c = 0; c < 2; c++) {
      if (fread(rows[c], sizeof(uint32_t), 2 * words[c], bins[c]) != 2 * words[c]) fail("shorter than its descriptor says", names[c]);
      const uint32_t *g0 = rows[c], *g1 = rows[c] + words[c];
      for (long s = 0; s < n[c]; s++, s_out++) {
        uint32_t bit = 1u << (31 - s % 32);
        int in0 = (g0[s / 32] & bit) != 0, in1 = (g1[s / 32] & bit) != 0;
        if (in0 && in1) fail("a sample has both genotype 0 and 1", names[c]);
        int g = in0 ? 0 : in1 ? 1 : 2;
        out[s_out / 4] |= (uint8_t)(code_of_g[g] << (2 * (s_out % 4)));
      }
    }
    if (fwrite(out, 1, bytes_per_snp, bed) != bytes_per_snp) fail("write failed", path);
  }
  if (fclose(bed) != 0) fail("write failed", path);
  return 0;
}
