/** `node --import <this file> <entry>.ts`: registers the TypeScript loader (see ts-loader.mjs). */
import { register } from 'node:module';

register(new URL('./ts-loader.mjs', import.meta.url));
