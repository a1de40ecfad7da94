// The course's MIME renderers: charts drawn from data, and the kernel's explanations.
import echarts from './echarts-renderer.js';
import hint from './kernel-hint.js';

export default [echarts, hint];
