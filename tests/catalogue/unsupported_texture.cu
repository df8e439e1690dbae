// error: textures and surfaces (tex1Dfetch)
__global__ void fetch(float* out, unsigned long long t) {
  out[0] = tex1Dfetch<float>(t, 0);
}
