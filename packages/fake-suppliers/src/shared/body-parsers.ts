import express, { type RequestHandler } from 'express';
import multer from 'multer';

/** JSON, urlencoded and multipart text fields: the vendors document forms, clients send JSON. */
export function bodyParsers(): RequestHandler[] {
  return [express.json({ type: ['application/json', '+json'] }), express.urlencoded({ extended: false }), multer().none()];
}
